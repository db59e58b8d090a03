/**
 * `npm run tools:import` — imports tools into Plandesk's catalog from an MCP server
 * (stdio, started here with the official SDK's client) or from OpenAI-style function definitions,
 * as a new catalog version when anything changed. Runs against DATABASE_URL like the other scripts.
 *
 *   npm run tools:import -- --mcp "node ./my-mcp-server.js --stdio"
 *   npm run tools:import -- --openai functions.json [--read-only get_eta,lookup_x]
 *   [--allow-agent <agentId>]…   also add the imported tools to that agent's allowlist
 *   [--desk <deskId>] [--bindings bindings.json]   bind the tools' arguments to the desk's declared
 *                                 record kinds (x-plandesk-… in the schemas, or the file's
 *                                 {tool: {arg: {record?, max?, window?, effect?}}}; docs/adapters.md)
 *
 * Prints what was added, changed, unchanged and refused; exits 1 when nothing could be imported or
 * a binding does not hold (then nothing is imported, each problem printed with its path).
 */
import fs from "node:fs";
import { toolNames } from "../lib/tools/builtin-tools";
import { draftsFromMcpTools, draftsFromOpenAiFunctions } from "../lib/tools/json-schema-tool";
import { prisma } from "../lib/server/db/db";
import { bindDrafts, importDrafts, listMcpServerTools } from "../lib/server/tools/imported-tools";
import { toolBindingsBodySchema } from "../lib/api/endpoints/tool-import-api";
import { DomainError } from "../lib/errors/domain-error";

const USAGE = `Usage: npm run tools:import -- (--mcp "<command>" | --openai <file.json> [--read-only a,b]) [--desk <deskId>] [--bindings <file.json>] [--allow-agent <agentId>]…`;

/** Splits a command line into words (double or single quotes group; no shell expansion). */
export function splitCommand(line: string): string[] {
  const out: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(line); m; m = re.exec(line)) out.push(m[1] ?? m[2] ?? m[3]);
  return out;
}

async function main(argv: string[]): Promise<number> {
  let mcp: string | undefined;
  let openai: string | undefined;
  let readOnly = new Set<string>();
  const agents: string[] = [];
  let desk: string | undefined;
  let bindingsFile: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const v = argv[i + 1];
    if (!v || !["--mcp", "--openai", "--read-only", "--allow-agent", "--desk", "--bindings"].includes(argv[i])) throw new Error(`Unknown argument "${argv[i]}".\n${USAGE}`);
    if (argv[i] === "--mcp") mcp = v;
    else if (argv[i] === "--desk") desk = v;
    else if (argv[i] === "--bindings") bindingsFile = v;
    else if (argv[i] === "--openai") openai = v;
    else if (argv[i] === "--read-only") readOnly = new Set(v.split(",").filter(Boolean));
    else agents.push(v);
    i++;
  }
  if (!mcp === !openai) throw new Error(USAGE);
  const builtIn = new Set<string>(toolNames);
  let drafts: ReturnType<typeof draftsFromMcpTools>;
  let source: { kind: "mcp" | "openai"; ref: string };
  if (mcp) {
    const [command, ...args] = splitCommand(mcp);
    source = { kind: "mcp", ref: mcp };
    drafts = draftsFromMcpTools(await listMcpServerTools(command, args), mcp, builtIn);
  } else {
    const json: unknown = JSON.parse(fs.readFileSync(openai!, "utf8"));
    const list = Array.isArray(json) ? json : ((json as { tools?: unknown; functions?: unknown }).tools ?? (json as { functions?: unknown }).functions);
    if (!Array.isArray(list)) throw new Error(`${openai} holds no list of function definitions.`);
    source = { kind: "openai", ref: openai! };
    drafts = draftsFromOpenAiFunctions(list, openai!, builtIn, readOnly);
  }
  const bindings = bindingsFile ? toolBindingsBodySchema.parse(JSON.parse(fs.readFileSync(bindingsFile, "utf8"))) : undefined;
  try {
    drafts = await bindDrafts(drafts, { desk, bindings });
  } catch (e) {
    if (e instanceof DomainError) {
      for (const p of (e.details.problems as { name: string; path?: string; reason: string }[] | undefined) ?? []) console.error(`binding refused: ${p.name} ${p.path ?? ""} — ${p.reason}`);
      console.error("Nothing was imported.");
      return 1;
    }
    throw e;
  }
  for (const p of drafts.problems) console.log(`not imported: ${p.name} — ${p.reason}`);
  if (drafts.drafts.length === 0) {
    console.error("Nothing could be imported.");
    return 1;
  }
  const res = await importDrafts(drafts, source, { kind: "system" });
  console.log(res.created ? `catalog version ${res.catalogVersion}` : `no change (catalog version ${res.catalogVersion})`);
  console.log(`added: ${res.added.join(", ") || "none"}; changed: ${res.changed.join(", ") || "none"}; unchanged: ${res.unchanged.join(", ") || "none"}`);
  for (const agentId of agents) {
    const a = await prisma.agent.findUnique({ where: { id: agentId } });
    if (!a) throw new Error(`No agent ${agentId}.`);
    const allowed = [...new Set([...(a.allowedTools as string[]), ...drafts.drafts.map((d) => d.name)])];
    await prisma.agent.update({ where: { id: agentId }, data: { allowedTools: allowed } });
    console.log(`${a.name} may now call: ${allowed.join(", ")}`);
  }
  return 0;
}

if (process.argv[1] && /tools-import\.ts$/.test(process.argv[1])) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e) => {
      console.error(e instanceof Error ? e.message : e);
      process.exit(1);
    },
  );
}
