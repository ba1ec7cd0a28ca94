// The CLI's option parser: node:util's parseArgs, as Node 20 to 24 define it, for the parts the
// CLI uses (args given, positionals allowed, strict or not; no negation, no tokens).
//
// Why our own: node:util's parseArgs loads and compiles its two internal modules at every start,
// 5.2 M instructions of a `status` that runs ~150 M (`--hash-seed=1`, callgrind). The same
// results and the same errors (code and message, which src/cli/main.ts words for the person) as
// Node's own, held so by a differential property test on every command's option table
// (parse-args.test.ts). Port of lib/internal/util/parse_args (MIT, Node.js contributors).

/** An option as parseArgs takes it. */
export interface ArgOption {
  readonly type: "string" | "boolean";
  readonly short?: string;
  readonly multiple?: boolean;
  readonly default?: string | boolean | readonly string[] | readonly boolean[];
}

export type ArgOptions = Readonly<Record<string, ArgOption>>;

export interface ParsedArgs {
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  positionals: string[];
}

/** An error as Node's parseArgs throws it: `code` ERR_PARSE_ARGS_UNKNOWN_OPTION or ERR_PARSE_ARGS_INVALID_OPTION_VALUE. */
export class ParseArgsError extends TypeError {
  constructor(
    readonly code: "ERR_PARSE_ARGS_UNKNOWN_OPTION" | "ERR_PARSE_ARGS_INVALID_OPTION_VALUE",
    message: string,
  ) {
    super(message);
  }
}

interface Token {
  name: string;
  rawName: string;
  value: string | undefined;
  inlineValue: boolean | undefined;
}

const own = (object: object, key: string): boolean => Object.prototype.hasOwnProperty.call(object, key);
const optionOf = (options: ArgOptions, name: string): ArgOption | undefined =>
  own(options, name) ? options[name] : undefined;

function longForShort(short: string, options: ArgOptions): string {
  for (const name of Object.keys(options)) if (options[name]!.short === short) return name;
  return short;
}

const isOptionLike = (value: string | undefined) => value !== undefined && value.length > 1 && value[0] === "-";

/** parseArgs({ args, options, allowPositionals: true, strict }). */
export function parseArgv(args: readonly string[], options: ArgOptions, strict: boolean): ParsedArgs {
  const tokens: (Token | { positional: string })[] = [];
  const rest = [...args];
  // `-f` or `--foo` alone: a string option takes the next word, whatever it is, as its value.
  const alone = (name: string, rawName: string): Token => {
    const takes = optionOf(options, name)?.type === "string" && rest.length > 0;
    return { name, rawName, value: takes ? rest.shift() : undefined, inlineValue: takes ? false : undefined };
  };
  while (rest.length > 0) {
    const arg = rest.shift()!;
    if (arg === "--") {
      for (const word of rest) tokens.push({ positional: word });
      break;
    }
    const short = arg.length >= 2 && arg[0] === "-" && arg[1] !== "-";
    if (short && arg.length === 2) {
      // -f, -f value
      tokens.push(alone(longForShort(arg[1]!, options), arg));
      continue;
    }
    if (short) {
      const name = longForShort(arg[1]!, options);
      if (optionOf(options, name)?.type !== "string") {
        // -abc: -a -b -c, and -abfFILE: -a -b -fFILE
        const expanded: string[] = [];
        for (let at = 1; at < arg.length; at++) {
          const inner = longForShort(arg[at]!, options);
          if (optionOf(options, inner)?.type !== "string" || at === arg.length - 1) expanded.push(`-${arg[at]}`);
          else {
            expanded.push(`-${arg.slice(at)}`);
            break;
          }
        }
        rest.unshift(...expanded);
        continue;
      }
      // -fFILE
      tokens.push({ name, rawName: `-${arg[1]}`, value: arg.slice(2), inlineValue: true });
      continue;
    }
    if (arg.length > 2 && arg.startsWith("--")) {
      const equals = arg.indexOf("=", 3);
      if (equals < 0) {
        // --foo, --foo value
        tokens.push(alone(arg.slice(2), arg));
      } else {
        // --foo=bar
        const name = arg.slice(2, equals);
        tokens.push({ name, rawName: `--${name}`, value: arg.slice(equals + 1), inlineValue: true });
      }
      continue;
    }
    tokens.push({ positional: arg });
  }

  const values: ParsedArgs["values"] = Object.create(null) as ParsedArgs["values"];
  const positionals: string[] = [];
  for (const token of tokens) {
    if ("positional" in token) {
      positionals.push(token.positional);
      continue;
    }
    if (strict) checkUsage(options, token);
    if (token.name === "__proto__") continue;
    const value = token.value ?? true;
    if (optionOf(options, token.name)?.multiple) {
      const list = values[token.name];
      if (Array.isArray(list)) list.push(value);
      else values[token.name] = [value];
    } else values[token.name] = value;
  }
  for (const name of Object.keys(options)) {
    const fallback = options[name]!.default;
    if (fallback !== undefined && values[name] === undefined && name !== "__proto__")
      values[name] = fallback as ParsedArgs["values"][string];
  }
  return { values, positionals };
}

function checkUsage(options: ArgOptions, token: Token): void {
  const option = optionOf(options, token.name);
  if (option === undefined)
    throw new ParseArgsError(
      "ERR_PARSE_ARGS_UNKNOWN_OPTION",
      `Unknown option '${token.rawName}'. To specify a positional argument starting with a '-', place it at the end of the command after '--', as in '-- ${JSON.stringify(token.rawName)}`,
    );
  const shortAndLong = `${option.short ? `-${option.short}, ` : ""}--${token.name}`;
  if (option.type === "string" && typeof token.value !== "string")
    throw new ParseArgsError(
      "ERR_PARSE_ARGS_INVALID_OPTION_VALUE",
      `Option '${shortAndLong} <value>' argument missing`,
    );
  if (option.type === "boolean" && token.value !== undefined)
    throw new ParseArgsError(
      "ERR_PARSE_ARGS_INVALID_OPTION_VALUE",
      `Option '${shortAndLong}' does not take an argument`,
    );
  if (!token.inlineValue && isOptionLike(token.value)) {
    const example = token.rawName.startsWith("--")
      ? `'${token.rawName}=-XYZ'`
      : `'--${token.name}=-XYZ' or '${token.rawName}-XYZ'`;
    throw new ParseArgsError(
      "ERR_PARSE_ARGS_INVALID_OPTION_VALUE",
      `Option '${token.rawName}' argument is ambiguous.\nDid you forget to specify the option argument for '${token.rawName}'?\nTo specify an option argument starting with a dash use ${example}.`,
    );
  }
}
