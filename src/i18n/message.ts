/**
 * A message of a catalogue: a sentence with `{name}` placeholders, or its plural forms, chosen by
 * Intl.PluralRules for the `count` parameter (Dutch and English both have "one" and "other").
 */
export type Message = string | { readonly one: string; readonly other: string };

export type Params = Readonly<Record<string, string | number>>;

/** The sentence for these parameters: the plural form for `count`, numbers formatted for the locale. */
export function render(locale: string, message: Message, params: Params = {}): string {
  const numbers = new Intl.NumberFormat(locale);
  let text: string;
  if (typeof message === 'string') text = message;
  else {
    const count = typeof params.count === 'number' ? params.count : Number(params.count);
    text = new Intl.PluralRules(locale).select(count) === 'one' ? message.one : message.other;
  }
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => {
    const value = params[name];
    if (value === undefined) return whole;
    return typeof value === 'number' ? numbers.format(value) : value;
  });
}

/** The static text between a message's placeholders (what the pages may never show in the other language). */
export function fragments(message: Message): string[] {
  const forms = typeof message === 'string' ? [message] : [message.one, message.other];
  return forms.flatMap((form) => form.split(/\{\w+\}/));
}
