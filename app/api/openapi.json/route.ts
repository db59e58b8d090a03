import { NextResponse } from "next/server";
import { approveBodySchema, rejectBodySchema } from "@/lib/server/approvals";
import { claimBodySchema, outcomeBodySchema } from "@/lib/server/claims";
import { submitEditBodySchema } from "@/lib/server/edits";
import { handle } from "@/lib/server/http";
import { submitRunBodySchema } from "@/lib/server/runs";
import { buildOpenApi } from "@/lib/openapi";
import { allowedToolsBodySchema, importToolsBodySchema } from "@/lib/server/tool-catalog";

/** `GET /api/openapi.json` — the whole API as OpenAPI 3.1, from the handlers' zod schemas. Public. */
export const GET = handle(async () =>
  NextResponse.json(
    buildOpenApi({
      submitRun: submitRunBodySchema,
      claim: claimBodySchema,
      outcome: outcomeBodySchema,
      edit: submitEditBodySchema,
      approve: approveBodySchema,
      reject: rejectBodySchema,
      importTools: importToolsBodySchema,
      allowedTools: allowedToolsBodySchema,
    }),
  ),
);
