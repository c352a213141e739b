import { type HtmlValue, html, SafeHtml } from "./html.ts";

/**
 * The frame every public ingress page shares. Inline CSS only (the platform's CSP allows inline
 * styles and no scripts): the pages work without JavaScript and load nothing else.
 */
const styles = new SafeHtml(`
:root { color-scheme: light dark; --bg: #f4f5f7; --card: #fff; --text: #1b1d21; --muted: #5a6170;
  --border: #c9ced8; --accent: #3a4fd6; --accent-text: #fff; --error: #b3261e; --error-bg: #fdecea; --ok: #1d7a46; }
@media (prefers-color-scheme: dark) { :root { --bg: #15171b; --card: #1f2228; --text: #eceef2; --muted: #a6adbb;
  --border: #3d424d; --accent: #8d9cff; --accent-text: #10131a; --error: #ffb4ab; --error-bg: #3b1a17; --ok: #7ddba3; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--text); line-height: 1.5;
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
main { max-width: 40rem; margin: 3rem auto; padding: 2rem; background: var(--card); border-radius: 12px;
  box-shadow: 0 1px 3px rgb(0 0 0 / 12%); }
@media (max-width: 42rem) { main { margin: 0; border-radius: 0; min-height: 100vh; padding: 1.25rem; } }
h1 { font-size: 1.6rem; line-height: 1.25; margin: 0 0 .5rem; }
p.lead { color: var(--muted); margin: 0 0 1.5rem; white-space: pre-line; }
.field { margin: 0 0 1.25rem; border: 0; padding: 0; }
label, legend { display: block; font-weight: 600; margin-bottom: .25rem; padding: 0; }
.hint { display: block; color: var(--muted); font-size: .9rem; margin-bottom: .35rem; }
.required { color: var(--error); margin-left: .15rem; }
input[type=text], input[type=email], input[type=url], input[type=number], input[type=date],
input[type=datetime-local], input[type=time], select, textarea { width: 100%; padding: .6rem .7rem; font: inherit;
  color: inherit; background: var(--card); border: 1px solid var(--border); border-radius: 8px; }
textarea { min-height: 7rem; resize: vertical; }
input:focus-visible, select:focus-visible, textarea:focus-visible, button:focus-visible, a:focus-visible {
  outline: 3px solid var(--accent); outline-offset: 2px; }
.choice { display: flex; gap: .5rem; align-items: center; font-weight: 400; margin: .2rem 0; }
.choice input { width: 1.15rem; height: 1.15rem; margin: 0; accent-color: var(--accent); }
[aria-invalid=true] { border-color: var(--error) !important; border-width: 2px !important; }
.error { display: block; color: var(--error); font-weight: 600; font-size: .95rem; margin-top: .3rem; }
.summary { border: 2px solid var(--error); background: var(--error-bg); border-radius: 8px; padding: .75rem 1rem;
  margin: 0 0 1.5rem; }
.summary h2 { font-size: 1.05rem; margin: 0 0 .35rem; }
.summary ul { margin: 0; padding-left: 1.2rem; }
.summary a { color: var(--error); }
button { font: inherit; font-weight: 600; padding: .65rem 1.4rem; border: 0; border-radius: 8px;
  background: var(--accent); color: var(--accent-text); cursor: pointer; }
.note { color: var(--muted); font-size: .9rem; }
.status { font-size: .95rem; font-weight: 600; color: var(--muted); text-transform: uppercase; letter-spacing: .04em; }
.done { color: var(--ok); }
code { font-size: .95em; }
`);

export function renderPage(options: { title: string; body: HtmlValue }): string {
  const page: SafeHtml = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${options.title}</title>
<style>${styles}</style>
</head>
<body>
<main>
${options.body}
</main>
</body>
</html>
`;
  return page.value;
}
