/**
 * How the GitHub Actions runner reads a step's log: lines end at `\n`, `\r\n` or a lone `\r`; a
 * line that starts (after white space) with `::` or `##[` is a workflow command and is obeyed,
 * except between `::stop-commands::TOKEN` and `::TOKEN::`.
 */

/** The command lines the runner would obey in `log`, in order. */
export function obeyedCommands(log: string): string[] {
  const obeyed: string[] = [];
  let stopToken: string | undefined;
  for (const raw of log.split(/\r\n|\r|\n/)) {
    const line = raw.trimStart();
    if (stopToken !== undefined) {
      if (line === `::${stopToken}::`) stopToken = undefined;
      continue;
    }
    if (!line.startsWith("::") && !line.startsWith("##[")) continue;
    obeyed.push(line);
    const stop = /^::stop-commands::(.+)$/.exec(line);
    if (stop) stopToken = stop[1];
  }
  return obeyed;
}

/** The workflow commands svc-iac itself writes: annotations titled svc-iac, its log group, stop-commands around untrusted text. */
const OURS = [
  /^::(error|warning|notice) (file=[^:,]*,line=\d+,col=\d+,)?title=svc-iac[^:,]*::/,
  /^::group::svc-iac (validate|plan|apply|drift): /,
  /^::endgroup::$/,
  /^::stop-commands::[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
];

/** Command lines in `log` that svc-iac did not write: each one is an injection. */
export function foreignCommands(log: string): string[] {
  return obeyedCommands(log).filter((line) => !OURS.some((re) => re.test(line)));
}
