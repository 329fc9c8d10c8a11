import { z } from 'zod';

/**
 * Start-up refusals in plain words, one line per problem, like the CLI's diagnostics: the variable, its value
 * as set (secrets masked) and what is expected: `PORT=abc: expected a port number 0–65535`. The validator's
 * own wording ("Invalid input: expected number, received NaN") says neither which value nor what to write.
 */

/** Variables whose values are secrets: shown as their length only. */
const SECRET = /(TOKEN|SECRET|PASSWORD|PASSPHRASE|ENCRYPTION|PRIVATE|_KEY$|_KEYS$)/;

/** Wordings a bare number rule cannot give. */
const EXPECTED: Record<string, string> = {
  PORT: 'a port number 0–65535',
};

/** A value as shown in a refusal: secrets masked, URL passwords masked, long values cut. */
function shownValue(variable: string, value: string | undefined): string {
  if (value === undefined) return `${variable} (unset)`;
  if (value === '') return `${variable}=""`;
  if (SECRET.test(variable) && !variable.endsWith('_FILE'))
    return `${variable}=${'*'.repeat(6)} (${value.length} characters, hidden)`;
  // A password in a URL (valid or not: the value is refused because something is wrong with it).
  let shown = value.replace(/(\/\/[^/:@\s]*:)[^@\s/]*@/, '$1******@');
  if (shown.length > 80) shown = `${shown.slice(0, 77)}…`;
  return /[\s"]/.test(shown) ? `${variable}=${JSON.stringify(shown)}` : `${variable}=${shown}`;
}

/** The schema inside .default()/.optional()/.transform() wrappers. */
function innermost(schema: z.ZodType | undefined): z.ZodType | undefined {
  let current = schema as { _zod?: { def?: { innerType?: unknown; in?: unknown } } } | undefined;
  for (let i = 0; i < 10 && current?._zod?.def; i++) {
    const next = current._zod.def.innerType ?? current._zod.def.in;
    if (!next) break;
    current = next as typeof current;
  }
  return current as z.ZodType | undefined;
}

/** "a whole number 0–65535", "a whole number, at least 1", from the number schema's own checks. */
function numberWanted(schema: z.ZodType | undefined): string | undefined {
  const inner = innermost(schema);
  if (!(inner instanceof z.ZodNumber)) return undefined;
  const kind = inner.isInt ? 'a whole number' : 'a number';
  const step = inner.isInt ? 1 : 0;
  let min: number | undefined;
  let max: number | undefined;
  for (const check of inner._zod.def.checks ?? []) {
    const def = check._zod.def as { check: string; value?: number; inclusive?: boolean };
    if (typeof def.value !== 'number') continue;
    if (def.check === 'greater_than') min = def.inclusive ? def.value : def.value + step;
    if (def.check === 'less_than') max = def.inclusive ? def.value : def.value - step;
  }
  if (min !== undefined && max !== undefined) return `${kind} ${min}–${max}`;
  if (min !== undefined) return `${kind}, at least ${min}`;
  if (max !== undefined) return `${kind}, at most ${max}`;
  return kind;
}

/** What the variable must be, in words, for one of the validator's issues. */
function wanted(variable: string, issue: z.core.$ZodIssue, schema: z.ZodType | undefined): string {
  const number = EXPECTED[variable] ?? numberWanted(schema);
  switch (issue.code) {
    case 'invalid_type':
      if (number) return `expected ${number}`;
      return issue.expected === 'string' ? 'required' : `expected ${issue.expected}`;
    case 'too_small':
    case 'too_big': {
      if (number) return `expected ${number}`;
      const bound = issue.code === 'too_small' ? `at least ${issue.minimum}` : `at most ${issue.maximum}`;
      return issue.origin === 'string' ? `expected ${bound} characters` : `expected ${bound}`;
    }
    case 'invalid_value':
      return `expected one of ${issue.values.map((value) => String(value)).join(', ')}`;
    case 'invalid_format':
      return issue.format === 'url'
        ? 'expected a URL, like https://host.example'
        : `expected a ${issue.format}`;
    default:
      return issue.message;
  }
}

export interface EnvProblem {
  variable: string;
  /** What is expected or what is wrong, in words. */
  expected: string;
}

/** The validator's issues as problems, worded from the schema they failed. */
export function problemsOf(
  issues: readonly z.core.$ZodIssue[],
  shape: Record<string, z.ZodType>,
): EnvProblem[] {
  return issues.map((issue) => {
    const variable = String(issue.path[0] ?? '');
    return { variable, expected: wanted(variable, issue, shape[variable]) };
  });
}

/** One line per problem: `PORT=abc: expected a port number 0–65535`. */
export function formatProblems(problems: readonly EnvProblem[], source: NodeJS.ProcessEnv): string[] {
  return problems.map(({ variable, expected }) => `${shownValue(variable, source[variable])}: ${expected}`);
}
