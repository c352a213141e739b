import * as util from "node:util";

type Prompts = typeof import("@clack/prompts");

/**
 * The terminal's prompts, spinners and progress bars (`@clack/prompts`), or undefined under a Node
 * older than 20.12: that library imports `util.styleText` when it loads, which such a Node lacks,
 * and the CLI must still start there. Without them the CLI behaves as it does in a pipe.
 */
export const terminalPrompts: Prompts | undefined =
  typeof (util as { styleText?: unknown }).styleText === "function" ? await import("@clack/prompts") : undefined;
