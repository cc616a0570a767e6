import { runCli } from '../../src/cli.js';

export interface Captured {
  code: number | 'running';
  stdout: string;
  stderr: string;
}

/** `shelfmark <args>` in-process through runCli, its output captured; `tty`: whether stdout and stderr are terminals. */
export async function cli(args: string[], tty = false): Promise<Captured> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(args, {
    out: (line) => (stdout += `${line}\n`),
    err: (line) => (stderr += `${line}\n`),
    errWrite: (text) => (stderr += text),
    outTty: tty,
    errTty: tty,
  });
  return { code, stdout, stderr };
}
