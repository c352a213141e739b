/** A numbered step of a README tour: its text and the shell commands of its ```sh blocks, in order. */
export interface TourStep {
  number: number;
  /** The step's Markdown, blocks included: what the reader is told to do besides typing commands. */
  text: string;
  /** One entry a command as a person types it: continuation lines joined, comment-only lines left out. */
  commands: string[];
}

/**
 * The steps of the README section under `## <heading>`: its text up to the next heading (`##` or
 * `###`: a `###` there starts another path, such as a different way to install), cut at each bold
 * step number (`**1. …**`). Text before the first step belongs to no step.
 */
export function tourSteps(readme: string, heading: string): TourStep[] {
  const lines = readme.split("\n");
  const start = lines.indexOf(`## ${heading}`);
  if (start === -1) throw new Error(`the README has no section "## ${heading}"`);
  const rest = lines.slice(start + 1);
  const end = rest.findIndex((line) => /^#{2,3} /.test(line));
  const section = (end === -1 ? rest : rest.slice(0, end)).join("\n");
  return section.split(/^(?=\*\*\d+\. )/m).flatMap((part) => {
    const number = /^\*\*(\d+)\. /.exec(part)?.[1];
    return number === undefined ? [] : [{ number: Number(number), text: part, commands: shellCommandsOf(part) }];
  });
}

/** The commands of the ```sh blocks of a Markdown text. */
function shellCommandsOf(markdown: string): string[] {
  return [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].flatMap((block) => {
    const commands: string[] = [];
    let pending = "";
    for (const line of (block[1] ?? "").split("\n")) {
      pending = pending === "" ? line : `${pending}\n${line}`;
      if (line.endsWith("\\")) continue;
      if (pending.trim() !== "" && !pending.trim().startsWith("#")) commands.push(pending);
      pending = "";
    }
    return commands;
  });
}
