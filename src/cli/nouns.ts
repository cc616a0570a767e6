/** A count with its noun in the right number, as the CLI prints it: "1 row", "7 rows", "1,200 rows". */
export const counted = (n: number, one: string, many = `${one}s`): string =>
  `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;
