/**
 * `npm run admin:create -- --email a@b.c [--name "…"]`: creates an admin (the first admin of a
 * production desk, PLANDESK_DEMO=0, or a recovery admin). The password is never an argument
 * (it would end up in shell history and the process list): on a terminal it is prompted for
 * twice without echo; otherwise it is the first line of stdin, e.g.
 *   printf '%s\n' "$ADMIN_PASSWORD" | npm run admin:create -- --email a@b.c
 * At least 10 characters. Refuses an email that already exists. Exit code 0 on success, 1 on
 * a refusal, 2 on bad usage.
 */
import { parseArgs } from "node:util";
import { isDomainError } from "../lib/errors/domain-error";
import { bootstrapAdmin } from "../lib/server/admin/bootstrap";
import { prisma } from "../lib/server/db/db";

const USAGE = 'Usage: npm run admin:create -- --email a@b.c [--name "Full Name"]   (password from the prompt or stdin)';

class UsageError extends Error {}

function parseCommandLine(argv: string[]): { email: string; name: string } {
  if (argv.some((a) => /^--?(p|pw|pass|password)(=|$)/i.test(a))) {
    throw new UsageError("Never pass a password as an argument (shell history, process list). Type it at the prompt or pipe it on stdin.");
  }
  let values: { email?: string; name?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { email: { type: "string" }, name: { type: "string" }, help: { type: "boolean", short: "h" } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  if (!values.email) throw new UsageError("--email is required.");
  const email = values.email.trim();
  const name = values.name?.trim() || email.split("@")[0];
  return { email, name };
}

/** Reads one line from a terminal without echoing it. */
function promptHidden(question: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stdin = process.stdin;
    process.stderr.write(question);
    let value = "";
    const done = (err?: Error) => {
      stdin.setRawMode(false);
      stdin.pause();
      stdin.removeListener("data", onData);
      process.stderr.write("\n");
      if (err) reject(err);
      else resolve(value);
    };
    const onData = (chunk: Buffer) => {
      for (const ch of chunk.toString("utf8")) {
        if (ch === "\r" || ch === "\n") return done();
        if (ch === "\u0003" || ch === "\u0004") return done(new UsageError("Cancelled."));
        if (ch === "\u007f" || ch === "\b") value = value.slice(0, -1);
        else value += ch;
      }
    };
    stdin.setRawMode(true);
    stdin.resume();
    stdin.on("data", onData);
  });
}

/** The first line of stdin (a pipe or file), without its line ending. */
async function readStdinLine(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8").split(/\r?\n/)[0] ?? "";
}

async function readPassword(email: string): Promise<string> {
  if (!process.stdin.isTTY) return readStdinLine();
  const first = await promptHidden(`Password for ${email} (at least 10 characters): `);
  const second = await promptHidden("Repeat the password: ");
  if (first !== second) throw new UsageError("The two passwords differ; nothing was created.");
  return first;
}

async function main(): Promise<number> {
  let args: { email: string; name: string };
  try {
    args = parseCommandLine(process.argv.slice(2));
  } catch (e) {
    if (e instanceof UsageError) {
      console.error(`admin:create: ${e.message}\n${USAGE}`);
      return 2;
    }
    throw e;
  }
  try {
    const password = await readPassword(args.email);
    const user = await bootstrapAdmin({ email: args.email, name: args.name, password });
    console.log(`Created admin ${user.email} (${user.name}, id ${user.id}). Sign in at /sign-in.`);
    return 0;
  } catch (e) {
    if (e instanceof UsageError) {
      console.error(`admin:create: ${e.message}`);
      return 1;
    }
    if (isDomainError(e)) {
      console.error(`admin:create: ${e.message.replace(/[.\s]*$/, ".")} Nothing was created.`);
      return 1;
    }
    throw e;
  }
}

main()
  .then((code) => {
    process.exitCode = code;
  })
  .catch((e) => {
    console.error(`admin:create: ${e instanceof Error ? e.message : String(e)}`);
    process.exitCode = 1;
  })
  .finally(() => prisma.$disconnect());
