// Preloaded (NODE_OPTIONS=--require) into the command bench/startup.ts times: at its exit the process
// writes the CPU time it used (user + system, in ms) as the last line of its stderr. The wall time
// wanders with this VM's state; the command's own CPU time wanders less.
process.on("exit", () => {
  const { user, system } = process.cpuUsage();
  require("node:fs").writeSync(2, `\ncordon-bench-cpu-ms ${(user + system) / 1000}\n`);
});
