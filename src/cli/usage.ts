/** Usage text and the error for bad command lines. */

export class CliUsageError extends Error {
  override readonly name = "CliUsageError";
}

export function formatHelp(): string {
  return `svc-iac: infrastructure as code for the UDF platform

Usage:
  svc-iac emulator [--host 127.0.0.1] [--port N] [--data-dir DIR] [--seed FILE] [--faults SPEC] [--import-max-bytes N]
      Runs a local emulator of the platform API. Its first stdout line is one JSON object with
      base_url, udf_base_url, user_token, service_token, client_id, other_user_token and
      basic_user_token. Logs go to stderr. Ctrl-C (SIGINT) or SIGTERM stops it.

  svc-iac --help | --version
`;
}
