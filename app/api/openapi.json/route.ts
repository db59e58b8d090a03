import { NextResponse } from "next/server";
import { approveBodySchema, rejectBodySchema } from "@/lib/api/bodies";
import { claimBodySchema, outcomeBodySchema } from "@/lib/api/bodies";
import { submitEditBodySchema } from "@/lib/api/bodies";
import { handle } from "@/lib/server/http";
import { submitRunBodySchema } from "@/lib/api/bodies";
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
