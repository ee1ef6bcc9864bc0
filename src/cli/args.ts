/** Minimal `--flag value` / `--flag` / positional parser (no dependency needed). */
export function parseArgs(argv: string[]): { positional: string[]; flags: Map<string, string | true> } {
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const [name, inline] = arg.slice(2).split('=', 2) as [string, string | undefined];
    const next = argv[i + 1];
    if (inline !== undefined) flags.set(name, inline);
    else if (next !== undefined && !next.startsWith('--')) {
      flags.set(name, next);
      i += 1;
    } else flags.set(name, true);
  }
  return { positional, flags };
}

/** An http(s) address from the command line or the environment; `what` names where it came from. */
export function httpUrl(text: string, what: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new CliError(`${what} is not a URL: ${text} (an address such as http://127.0.0.1:3000)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError(`${what} must be http:// or https:// (got ${text})`);
  return url;
}

/** A problem with the command line: printed without a stack, exit code 2. */
export class CliError extends Error {}

export type Flags = Map<string, string | true>;

/** The flags one command takes: those that carry a value, and on/off switches. */
export interface FlagSpec {
  values?: readonly string[];
  switches?: readonly string[];
}

/**
 * Refuses a flag the command does not take (a misspelt `--scope` must not leave a key with the
 * default scopes) and a value given to a switch (`--public false` would otherwise mean on).
 */
export function checkFlags(flags: Flags, spec: FlagSpec): void {
  const known = [...(spec.values ?? []), ...(spec.switches ?? [])].map((n) => `--${n}`);
  for (const [name, value] of flags) {
    if (spec.switches?.includes(name)) {
      // `--public false` must not mean on; `revoke --force 7` reads 7 as the switch's value too
      if (value !== true) throw new CliError(`--${name} is a switch and takes no value (got "${value}"); leave it out for off, and put arguments before flags`);
    } else if (!spec.values?.includes(name)) {
      throw new CliError(`unknown flag --${name}${known.length > 0 ? `; this command takes ${known.join(', ')}` : '; this command takes no flags'}`);
    }
  }
}

/** A flag's value, undefined when absent; a bare `--name` (no value) is an error. */
export function flagText(flags: Flags, name: string): string | undefined {
  const value = flags.get(name);
  if (value === true) throw new CliError(`--${name} needs a value`);
  return value;
}
