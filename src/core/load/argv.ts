// A command line typed by a person, split into argv the way a POSIX shell would for the simple
// cases (spaces, 'single' and "double" quotes, backslash escapes), without running a shell: what
// a shell would do beyond that (pipes, redirections, variables, globbing) is refused, not guessed.

export class CommandLineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandLineError';
  }
}

const SHELL_ONLY = new Set(['|', '&', ';', '<', '>', '(', ')', '`', '$']);

export function splitCommandLine(line: string): string[] {
  const args: string[] = [];
  let current = '';
  let inArg = false;
  let i = 0;
  const fail = (what: string): never => {
    throw new CommandLineError(
      `The load command ${what}; it runs without a shell: write the program and its arguments only (quote with '…' or "…").`,
    );
  };
  while (i < line.length) {
    const c = line[i];
    if (c === ' ' || c === '\t' || c === '\n') {
      if (inArg) args.push(current);
      current = '';
      inArg = false;
      i++;
      continue;
    }
    inArg = true;
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) fail("has an unclosed ' quote");
      current += line.slice(i + 1, end);
      i = end + 1;
    } else if (c === '"') {
      i++;
      for (;;) {
        if (i >= line.length) fail('has an unclosed " quote');
        const d = line[i];
        if (d === '"') break;
        if (d === '\\' && i + 1 < line.length && '"\\$`\n'.includes(line[i + 1])) {
          current += line[i + 1];
          i += 2;
          continue;
        }
        if (d === '$' || d === '`') fail(`uses ${d} inside "…" (shell expansion)`);
        current += d;
        i++;
      }
      i++;
    } else if (c === '\\') {
      if (i + 1 >= line.length) fail('ends with a lone backslash');
      current += line[i + 1];
      i += 2;
    } else {
      if (SHELL_ONLY.has(c)) fail(`uses ${c} (a shell operator or expansion)`);
      current += c;
      i++;
    }
  }
  if (inArg) args.push(current);
  if (args.length === 0) throw new CommandLineError('The load command is empty.');
  return args;
}
