import { type ReactNode, useState } from "react";

/** A URL shown in full with a button that copies it. */
export function CopyableUrl({ label, url }: { label: string; url: string }): ReactNode {
  const [copied, setCopied] = useState<"no" | "yes" | "failed">("no");
  const copy = async (): Promise<void> => {
    try {
      await navigator.clipboard.writeText(url);
      setCopied("yes");
    } catch {
      setCopied("failed");
    }
  };
  return (
    <div className="copyable">
      <code className="url">{url}</code>
      <button type="button" className="button secondary small" onClick={() => void copy()} aria-label={`Copy ${label}`}>
        Copy
      </button>
      <span role="status" className="muted">
        {copied === "yes" ? "Copied" : copied === "failed" ? "Copy failed: select the text instead" : ""}
      </span>
    </div>
  );
}
