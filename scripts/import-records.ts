/**
 * `npm run import` — sends a file of records to a Plandesk's records door
 * (`POST /api/v1/records/batch`, docs/api-extensions.md "Records door") in requests of N lines,
 * with a progress bar on stderr (records/s, ETA), resumable.
 *
 *   npm run import -- --url http://localhost:3000 --key pd_… [--desk freight] file.ndjson
 *   npm run import -- --url … --key … [--desk …] [--kind invoice] file.csv
 *   [--lines 5000]   records per request      [--resume]   continue after the last confirmed line
 *
 * NDJSON: one record per line, `{kind, id, op?, sourceVersion, sourceUpdatedAt, ...fields}`.
 * CSV: a header row naming the fields; a `kind` column or `--kind`; cells of `sourceVersion`,
 * `totalMinor`, `openMinor` are numbers, a cell starting with `[` or `{` is JSON (fees, tags), an
 * empty cell is left out; quoted cells may hold commas and doubled quotes, not newlines.
 * After each request the server confirmed, the last line it covered is written to
 * `<file>.import-state.json`; `--resume` starts after it. Prints every refused line (its line in
 * the file, code and message) and exits 1 when any line was refused, 2 when the import could not
 * finish (a refused request, the server unreachable), 0 otherwise.
 */
import fs from "node:fs";
import readline from "node:readline";

const USAGE = "Usage: npm run import -- --url <http://host:port> --key <integration key> [--desk <desk>] [--kind <kind>] [--lines <n>] [--resume] <file.ndjson|file.csv>";

/** Options of one import (see the module comment). `fetch` and `stderr` are injectable for tests. */
export interface ImportOptions {
  file: string;
  url: string;
  key: string;
  desk?: string;
  kind?: string;
  linesPerRequest?: number;
  resume?: boolean;
  fetch?: typeof fetch;
  stderr?: { write(s: string): unknown; isTTY?: boolean };
  /** Seconds between retries of a request the server could not take (503, network); default 1. */
  retryDelaySeconds?: number;
}

/** What a file line came to: its line in the file, the code and message of its refusal. */
export interface ImportError {
  line: number;
  code: string;
  message: string;
}

/** The progress an import keeps in `<file>.import-state.json`. */
export interface ImportState {
  file: string;
  size: number;
  /** The last line of the file the server confirmed (applied, ignored or refused). */
  confirmedLine: number;
  /** Bytes of the file up to and including `confirmedLine`. */
  confirmedBytes: number;
  applied: number;
  ignored: number;
  refused: number;
}

/** The result of an import: the exit code and the totals (including a resumed run's earlier ones). */
export interface ImportResult {
  exitCode: 0 | 1 | 2;
  state: ImportState;
  errors: ImportError[];
  requests: number;
}

/** The state file of `file`. */
export const stateFileOf = (file: string) => `${file}.import-state.json`;

const NUMERIC = new Set(["sourceVersion", "totalMinor", "openMinor"]);

/** Splits one CSV line into cells (RFC 4180 quoting within a line: `"a,b"`, `""` for a quote). */
export function csvCells(line: string): string[] {
  const out: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quoted && c === '"' && line[i + 1] === '"') {
      cell += '"';
      i++;
    } else if (c === '"') quoted = !quoted;
    else if (c === "," && !quoted) {
      out.push(cell);
      cell = "";
    } else cell += c;
  }
  out.push(cell);
  return out;
}

/** One CSV row as a record's JSON line: numbers for numeric columns, JSON for `[`/`{` cells, empty cells left out; `kind` from `--kind` when the row has none. */
export function csvRecord(header: string[], cells: string[], kind?: string): string {
  const rec: Record<string, unknown> = kind ? { kind } : {};
  header.forEach((h, i) => {
    const v = (cells[i] ?? "").trim();
    if (v === "") return;
    if (NUMERIC.has(h) && /^-?\d+$/.test(v)) rec[h] = Number(v);
    else if (v.startsWith("[") || v.startsWith("{")) {
      try {
        rec[h] = JSON.parse(v);
      } catch {
        rec[h] = v;
      }
    } else rec[h] = v;
  });
  return JSON.stringify(rec);
}

/** Runs one import (see the module comment). Never throws for the server's answers; throws only for a missing file. */
export async function importRecords(opts: ImportOptions): Promise<ImportResult> {
  const doFetch = opts.fetch ?? fetch;
  const err = opts.stderr ?? process.stderr;
  const perRequest = opts.linesPerRequest ?? 5000;
  const size = fs.statSync(opts.file).size;
  const statePath = stateFileOf(opts.file);
  let state: ImportState = { file: opts.file, size, confirmedLine: 0, confirmedBytes: 0, applied: 0, ignored: 0, refused: 0 };
  if (opts.resume && fs.existsSync(statePath)) {
    const saved = JSON.parse(fs.readFileSync(statePath, "utf8")) as ImportState;
    if (saved.size !== size) err.write(`warning: ${opts.file} changed size since the state was saved; resuming after line ${saved.confirmedLine} anyway\n`);
    state = { ...saved, size };
  }
  const save = () => fs.writeFileSync(statePath, JSON.stringify(state, null, 2) + "\n");
  const errors: ImportError[] = [];
  const csv = opts.file.toLowerCase().endsWith(".csv");
  const endpoint = `${opts.url.replace(/\/$/, "")}/api/v1/records/batch${opts.desk ? `?desk=${encodeURIComponent(opts.desk)}` : ""}`;
  const started = Date.now();
  const startBytes = state.confirmedBytes;
  let requests = 0;

  const progress = (final = false) => {
    const secs = Math.max((Date.now() - started) / 1000, 0.001);
    const done = state.confirmedBytes - startBytes;
    const rate = (state.applied + state.ignored + state.refused) / secs;
    const byteRate = done / secs;
    const pct = size > 0 ? Math.min(1, state.confirmedBytes / size) : 1;
    const eta = byteRate > 0 ? Math.round((size - state.confirmedBytes) / byteRate) : 0;
    const bar = "#".repeat(Math.round(pct * 30)).padEnd(30, ".");
    err.write(`\r[${bar}] ${(pct * 100).toFixed(1)}% line ${state.confirmedLine.toLocaleString("en")}  ${Math.round(rate).toLocaleString("en")} records/s  ETA ${eta}s${final ? "\n" : ""}`);
  };

  /** Sends one request of lines; returns false when the import must stop. */
  const send = async (lines: string[], fileLines: number[], endBytes: number): Promise<boolean> => {
    const body = lines.join("\n") + "\n";
    for (let attempt = 1; ; attempt++) {
      let res: Response;
      try {
        requests++;
        res = await doFetch(endpoint, { method: "POST", headers: { authorization: `Bearer ${opts.key}`, "content-type": "application/x-ndjson" }, body });
      } catch (e) {
        if (attempt < 5) {
          await sleep(opts.retryDelaySeconds ?? 1);
          continue;
        }
        err.write(`\nerror: the server could not be reached (${e instanceof Error ? e.message : String(e)}); nothing after line ${state.confirmedLine} was confirmed. Run again with --resume.\n`);
        return false;
      }
      const text = await res.text();
      if (res.status === 503 && attempt < 5) {
        await sleep(Number(res.headers.get("retry-after")) || (opts.retryDelaySeconds ?? 1));
        continue;
      }
      if (res.status !== 200) {
        err.write(`\nerror: the server refused the request (${res.status}): ${text.slice(0, 500)}\nNothing after line ${state.confirmedLine} was confirmed.\n`);
        return false;
      }
      const answer = JSON.parse(text) as { lines: number; applied: number; ignored: number; errors: { line: number; code: string; message: string }[]; moreErrors: number; stoppedAtBytes?: number };
      for (const e of answer.errors) errors.push({ line: fileLines[e.line - 1] ?? e.line, code: e.code, message: e.message });
      state.applied += answer.applied;
      state.ignored += answer.ignored;
      state.refused += answer.errors.length + answer.moreErrors;
      if (answer.moreErrors > 0) errors.push({ line: fileLines[fileLines.length - 1], code: "more_errors", message: `${answer.moreErrors} more refused lines in the request ending here (the server lists 100 per request)` });
      if (answer.stoppedAtBytes !== undefined) {
        err.write(`\nerror: the request passed the server's byte bound; use fewer --lines. Nothing after line ${state.confirmedLine} was confirmed.\n`);
        return false;
      }
      state.confirmedLine = fileLines[fileLines.length - 1];
      state.confirmedBytes = endBytes;
      save();
      progress();
      return true;
    }
  };

  const input = fs.createReadStream(opts.file);
  const rl = readline.createInterface({ input, crlfDelay: Infinity });
  let lineNo = 0;
  let bytes = 0;
  let header: string[] | null = null;
  let batch: string[] = [];
  let batchLines: number[] = [];
  let ok = true;
  try {
    for await (const raw of rl) {
      lineNo++;
      bytes += Buffer.byteLength(raw) + 1;
      if (csv && header === null) {
        header = csvCells(raw).map((h) => h.trim());
        if (!opts.kind && !header.includes("kind")) {
          err.write("error: a CSV file needs a kind column or --kind\n");
          return { exitCode: 2, state, errors, requests };
        }
        continue;
      }
      if (lineNo <= state.confirmedLine) continue;
      if (raw.trim() === "") continue;
      batch.push(csv ? csvRecord(header!, csvCells(raw), opts.kind) : raw);
      batchLines.push(lineNo);
      if (batch.length >= perRequest) {
        if (!(ok = await send(batch, batchLines, Math.min(bytes, size)))) break;
        batch = [];
        batchLines = [];
      }
    }
    if (ok && batch.length > 0) ok = await send(batch, batchLines, size);
    if (ok) {
      state.confirmedLine = Math.max(state.confirmedLine, lineNo);
      state.confirmedBytes = size;
      save();
    }
  } finally {
    rl.close();
    input.destroy();
  }
  progress(true);
  for (const e of errors) err.write(`line ${e.line}: ${e.code}: ${e.message}\n`);
  err.write(`${state.applied} applied, ${state.ignored} not newer (ignored), ${state.refused} refused; confirmed through line ${state.confirmedLine}.\n`);
  return { exitCode: !ok ? 2 : state.refused > 0 ? 1 : 0, state, errors, requests };
}

const sleep = (s: number) => new Promise((r) => setTimeout(r, s * 1000));

/** Parses the command line (see the module comment). */
export function parseArgs(argv: string[]): ImportOptions {
  const o: Partial<ImportOptions> = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--resume") o.resume = true;
    else if (["--url", "--key", "--desk", "--kind", "--lines"].includes(a)) {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value.\n${USAGE}`);
      if (a === "--url") o.url = v;
      else if (a === "--key") o.key = v;
      else if (a === "--desk") o.desk = v;
      else if (a === "--kind") o.kind = v;
      else o.linesPerRequest = Math.max(1, Number.parseInt(v, 10) || 5000);
    } else if (a.startsWith("--")) throw new Error(`Unknown argument "${a}".\n${USAGE}`);
    else o.file = a;
  }
  if (!o.file || !o.url || !o.key) throw new Error(USAGE);
  return o as ImportOptions;
}

if (process.argv[1] && /import-records\.ts$/.test(process.argv[1])) {
  let opts: ImportOptions;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    console.error(e instanceof Error ? e.message : e);
    process.exit(2);
  }
  importRecords(opts).then(
    (r) => process.exit(r.exitCode),
    (e) => {
      console.error(e instanceof Error ? e.message : e);
      process.exit(2);
    },
  );
}
