import type { Context } from "hono";

/** A text field of a posted form: "" when it is absent, a file or repeated. */
export type FormField = (name: string) => string;

/**
 * The text fields of a posted form, or `undefined` when the body cannot be read as the form its
 * content type names (a multipart body without its boundary, or cut short): the runtime's form
 * parser throws a TypeError then, which a page answers with a 400 rather than a 500.
 */
export async function readFormFields(c: Context): Promise<FormField | undefined> {
  let form: Awaited<ReturnType<Context["req"]["parseBody"]>>;
  try {
    form = await c.req.parseBody();
  } catch (error) {
    if (error instanceof TypeError) return undefined;
    throw error;
  }
  return (name) => {
    const value = Object.hasOwn(form, name) ? form[name] : undefined;
    return typeof value === "string" ? value : "";
  };
}
