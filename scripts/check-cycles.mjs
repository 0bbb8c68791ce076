#!/usr/bin/env node
// Fails when the TypeScript modules under src/ import each other in a circle, or when a room (a
// folder under src/) imports a room above it in the declared order. Type-only imports count: a
// module must not need, even for a type, what needs it. Test files are leaves and are not read.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

/**
 * The room order, lowest first. A room imports only rooms in tiers below its own; rooms of one
 * tier are peers and import none of each other. "root" is src/*.ts, the composition root.
 */
const ROOMS = [
  ["core"],
  ["metrics"],
  ["store"],
  ["tenancy", "config"],
  ["bots", "metering"],
  ["credentials"],
  ["webhooks"],
  ["admission"],
  ["runs"],
  ["forges"],
  ["connections", "surfaces"],
  ["intake"],
  ["deliveries", "reporting"],
  ["console"],
  ["http"],
  ["root"],
  ["cli", "test-support"],
];
/** Inside intake, the same rule between its subfolders; "files" is intake/*.ts. */
const INTAKE_ROOMS = [["pipeline"], ["lanes"], ["files"], ["fixtures"]];
/**
 * Inside forges: one folder per forge over the neutral shared/; the registry and the openers
 * ("files", forges/*.ts) over the forges. Forgejo's deliveries are GitHub's shape, so it reads
 * GitHub's parse; no forge reads another otherwise.
 */
const FORGES_ROOMS = [["shared"], ["github", "gitlab", "generic"], ["forgejo"], ["files"]];

const root = path.resolve(process.argv[2] ?? "src");
const files = [];
const walk = (dir) => {
  for (const name of readdirSync(dir)) {
    const full = path.join(dir, name);
    if (statSync(full).isDirectory()) walk(full);
    else if (name.endsWith(".ts") && !name.endsWith(".test.ts")) files.push(full);
  }
};
walk(root);
const known = new Set(files);

const IMPORTS = [/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+"(\.{1,2}\/[^"]+)"/g, /\bimport\("(\.{1,2}\/[^"]+)"\)/g];
const edges = new Map();
for (const file of files) {
  const targets = new Map();
  const text = readFileSync(file, "utf8");
  for (const re of IMPORTS) {
    for (const m of text.matchAll(re)) {
      const target = path.resolve(path.dirname(file), m[1].replace(/\.js$/, ".ts"));
      if (known.has(target) && !targets.has(target)) targets.set(target, m[1]);
    }
  }
  edges.set(file, targets);
}

const failures = [];

// Rooms: every import from a room to a room not strictly below it is a back edge.
const rankOf = (tiers) => new Map(tiers.flatMap((tier, i) => tier.map((r) => [r, i])));
const checkRooms = (label, tiers, roomOf) => {
  const rank = rankOf(tiers);
  const backEdges = [];
  for (const [file, targets] of edges) {
    const from = roomOf(file);
    if (from === undefined) continue;
    if (!rank.has(from)) {
      failures.push(`${label}: ${path.relative(root, file)} is in room "${from}", which the order in scripts/check-cycles.mjs does not name`);
      continue;
    }
    for (const [target, spec] of targets) {
      const to = roomOf(target);
      if (to === undefined || to === from || !rank.has(to)) continue;
      if (rank.get(to) >= rank.get(from)) backEdges.push(`${label}: ${from} → ${to}: ${path.relative(root, file)} imports "${spec}"`);
    }
  }
  return backEdges;
};
const topRoom = (file) => {
  const parts = path.relative(root, file).split(path.sep);
  return parts.length > 1 ? parts[0] : "root";
};
const innerRoom = (outer) => (file) => {
  const parts = path.relative(root, file).split(path.sep);
  if (parts[0] !== outer) return undefined;
  return parts.length > 2 ? parts[1] : "files";
};
const backEdges = [
  ...checkRooms("room", ROOMS, topRoom),
  ...checkRooms("intake", INTAKE_ROOMS, innerRoom("intake")),
  ...checkRooms("forges", FORGES_ROOMS, innerRoom("forges")),
];

// Tarjan's strongly connected components: any component of more than one module is a circle.
let index = 0;
const stack = [];
const info = new Map();
const circles = [];
const visit = (v) => {
  info.set(v, { index, low: index, onStack: true });
  index++;
  stack.push(v);
  for (const w of edges.get(v).keys()) {
    if (!info.has(w)) {
      visit(w);
      info.get(v).low = Math.min(info.get(v).low, info.get(w).low);
    } else if (info.get(w).onStack) info.get(v).low = Math.min(info.get(v).low, info.get(w).index);
  }
  if (info.get(v).low === info.get(v).index) {
    const component = [];
    let w;
    do {
      w = stack.pop();
      info.get(w).onStack = false;
      component.push(path.relative(root, w));
    } while (w !== v);
    if (component.length > 1) circles.push(component.sort());
  }
};
for (const file of files) if (!info.has(file)) visit(file);

for (const c of circles) failures.push(`import circle: ${c.join(" ↔ ")}`);
for (const e of backEdges) failures.push(`back edge ${e}`);
if (failures.length > 0) {
  for (const f of failures) console.error(f);
  console.error(`${backEdges.length} back edges, ${circles.length} import circles`);
  process.exit(1);
}
console.log(`no import circles among ${files.length} modules; 0 back edges between ${ROOMS.flat().length} rooms`);
