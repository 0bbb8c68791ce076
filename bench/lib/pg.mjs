// A throwaway PostgreSQL cluster for the benchmark (scripts/pg-cluster.sh), stopped at the end.
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { freePort, onCleanup } from "./procs.mjs";

function hasInitdb() {
  const lib = "/usr/lib/postgresql";
  if (existsSync(lib) && readdirSync(lib).some((v) => existsSync(path.join(lib, v, "bin/initdb")))) return true;
  return spawnSync("sh", ["-c", "command -v initdb"]).status === 0;
}

export async function startPgCluster(root, workDir, log) {
  if (!hasInitdb()) {
    if (process.getuid?.() !== 0) throw new Error("PostgreSQL is not installed: apt-get install -y postgresql-15 (or pass SERVICE_DATABASE_URL)");
    log("PostgreSQL is not installed: installing Debian's postgresql-15 package");
    const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
    spawnSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
    spawnSync("apt-get", ["install", "-y", "-qq", "--no-install-recommends", "postgresql-15"], { stdio: "inherit", env });
  }
  if (process.getuid?.() === 0 && spawnSync("id", ["postgres"]).status !== 0) {
    execFileSync("useradd", ["--system", "--home-dir", "/var/lib/postgresql", "--shell", "/bin/bash", "postgres"]);
  }
  chmodSync(workDir, 0o755); // the cluster runs as user postgres and must reach its folder
  const dir = path.join(workDir, "pg");
  const port = await freePort();
  const script = path.join(root, "scripts/pg-cluster.sh");
  const url = execFileSync(script, ["start", dir, String(port)], { encoding: "utf8" })
    .trim()
    .split("\n")
    .pop();
  onCleanup(() => {
    log("stopping the PostgreSQL cluster");
    spawnSync(script, ["stop", dir], { stdio: "ignore" });
  });
  return url;
}
