"use client";

import { Bar, BarChart, CartesianGrid, Cell, Line, LineChart, ReferenceLine, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { axisWidth, compactCount } from "@/lib/text/chart-axis";
import type { DriftPoint, EditSizeBin } from "@/lib/audit/insights";

const pct = (v: number) => `${Math.round(v * 100)}%`;

/** Bar chart of edits per 10 %-wide edit-size bin; bins above one half are drawn in the alert colour. */
export function EditSizeChart({ bins }: { bins: EditSizeBin[] }) {
  // Counts reach thousands on a large desk: compact ticks ("2.4k") on an axis as wide as its longest label.
  const yWidth = axisWidth(Math.max(0, ...bins.map((b) => b.edits)));
  return (
    <div className="h-64 w-full text-slate-700" role="img" aria-label="Bar chart: number of edits per edit size (fraction of steps touched)">
      <ResponsiveContainer width="100%" height="100%">
        <BarChart data={bins} margin={{ top: 8, right: 16, bottom: 24, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" vertical={false} stroke="#94a3b8" />
          <XAxis dataKey="label" tick={{ fontSize: 11, fill: "currentColor" }} interval={0} angle={-30} textAnchor="end" height={44} />
          <YAxis allowDecimals={false} tickFormatter={compactCount} tick={{ fontSize: 11, fill: "currentColor" }} width={yWidth} />
          <Tooltip formatter={(v) => [`${v} edit${v === 1 ? "" : "s"}`, "Edits"]} labelFormatter={(l) => `${l} of steps touched`} />
          <Bar dataKey="edits" isAnimationActive={false} radius={[3, 3, 0, 0]}>
            {bins.map((b) => (
              <Cell key={b.label} fill={b.overHalf ? "#c2410c" : "#1d4ed8"} />
            ))}
          </Bar>
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

/** Line chart of the daily share of decided plans with more than half their steps touched, with the alert line. */
export function DriftChart({ points, threshold }: { points: DriftPoint[]; threshold: number }) {
  return (
    <div className="h-64 w-full text-slate-700" role="img" aria-label={`Line chart: share of plans with more than half their steps touched, per day; alert line at ${pct(threshold)}`}>
      <ResponsiveContainer width="100%" height="100%">
        <LineChart data={points} margin={{ top: 8, right: 24, bottom: 8, left: 0 }}>
          <CartesianGrid strokeDasharray="3 3" stroke="#94a3b8" />
          <XAxis dataKey="day" tick={{ fontSize: 11, fill: "currentColor" }} />
          <YAxis domain={[0, 1]} tickFormatter={pct} tick={{ fontSize: 11, fill: "currentColor" }} width={axisWidth(1, { format: pct })} />
          <Tooltip
            formatter={(v, _n, item) => {
              const p = (item as { payload?: DriftPoint }).payload;
              return [v == null ? "no decided plans" : `${pct(Number(v))} (${p?.overHalf ?? 0} of ${p?.plans ?? 0})`, "> ½ touched"];
            }}
          />
          <ReferenceLine
            y={threshold}
            stroke="#dc2626"
            strokeDasharray="6 3"
            ifOverflow="extendDomain"
            label={{ value: `alert ${pct(threshold)}`, position: "insideTopRight", fill: "currentColor", fontSize: 11 }}
          />
          <Line type="linear" dataKey="share" stroke="#1d4ed8" strokeWidth={2} dot={{ r: 3 }} connectNulls isAnimationActive={false} />
        </LineChart>
      </ResponsiveContainer>
    </div>
  );
}
