#!/usr/bin/env node
// Fails when the TypeScript modules under src/ import each other in a circle (type-only
// imports included): a module must not need, even for a type, what needs it.
import { readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";

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

const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+"(\.{1,2}\/[^"]+)"/g;
const edges = new Map();
for (const file of files) {
  const targets = new Set();
  for (const m of readFileSync(file, "utf8").matchAll(IMPORT)) {
    const target = path.resolve(path.dirname(file), m[1].replace(/\.js$/, ".ts"));
    if (files.includes(target)) targets.add(target);
  }
  edges.set(file, [...targets]);
}

// Tarjan's strongly connected components: any component of more than one module is a circle.
let index = 0;
const stack = [];
const info = new Map();
const circles = [];
const visit = (v) => {
  info.set(v, { index, low: index, onStack: true });
  index++;
  stack.push(v);
  for (const w of edges.get(v)) {
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

if (circles.length > 0) {
  for (const c of circles) console.error(`import circle: ${c.join(" ↔ ")}`);
  process.exit(1);
}
console.log(`no import circles among ${files.length} modules`);
