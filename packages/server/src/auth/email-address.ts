const maxLength = 254;
const localPart = /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+$/;
const domainLabel = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/;

/**
 * A deliberately plain check of an address we are about to mail: one `@`, a dot-atom local part,
 * and a domain of at least two DNS labels. Quoted local parts and IP literals are refused.
 */
export function isDeliverableEmailAddress(value: string): boolean {
  if (value.length > maxLength) return false;
  const at = value.lastIndexOf("@");
  if (at <= 0 || at !== value.indexOf("@")) return false;
  const local = value.slice(0, at);
  const labels = value.slice(at + 1).split(".");
  return (
    local.length <= 64 &&
    localPart.test(local) &&
    !local.startsWith(".") &&
    !local.endsWith(".") &&
    !local.includes("..") &&
    labels.length >= 2 &&
    labels.every((label) => domainLabel.test(label)) &&
    !/^\d+$/.test(labels.at(-1) ?? "")
  );
}
