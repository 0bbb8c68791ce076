import { exitOnFatal } from "./config/process-exit.js";
import { runRunnerProcess } from "./runner-process.js";

/** `npm run runner`: a runner on a host of its own, from SERVICE_RUNNER_URL and SERVICE_RUNNER_TOKEN (see docs/runners.md). */
runRunnerProcess(process.env).catch(exitOnFatal);
