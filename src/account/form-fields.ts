/**
 * A form field as posted: its one value, or undefined when missing, repeated (the body parser
 * makes a repeated key an array) or longer than `max` characters.
 */
export function formValue(body: unknown, name: string, max = 4096): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const value = (body as Record<string, unknown>)[name];
  return typeof value === 'string' && value.length <= max ? value : undefined;
}
