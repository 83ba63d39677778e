/** Arguments shown in commands the user may copy (`Next: svc-iac validate 'My Project'`), quoted for a POSIX shell when needed. */

/** `arg` as a shell reads it back: unchanged when it holds only safe characters, else in single quotes. */
export function shellQuote(arg: string): string {
  if (/^[A-Za-z0-9_./:@%+=,-]+$/.test(arg)) return arg;
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}
