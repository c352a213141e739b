import * as z from "zod";

/** C0 controls (NUL, CR, LF, tab…), DEL and C1 controls. */
const controlCharacter = /\p{Cc}/u;

/** Whether text holds a control character: in a name or a parameter, never anything but an attack or a mistake. */
export function hasControlCharacter(text: string): boolean {
  return controlCharacter.test(text);
}

/**
 * A name people read, in pages and in mail bodies (a workspace's or a project's): at most 64
 * characters once trimmed, and no control characters, which would break a mail's lines or forge
 * new ones.
 */
export function displayNameSchema(what: string) {
  return z
    .string()
    .refine(
      (name) => !hasControlCharacter(name),
      `A ${what} name cannot contain control characters (line breaks, tabs, NUL…).`,
    )
    .trim()
    .min(1, `A ${what} name needs at least 1 character.`)
    .max(64, `A ${what} name has at most 64 characters.`);
}
