// task: Post the deploy status to #eng and #incidents and tell me the timestamp of the last post.
// expect: error
// mistake: wrong-assignment
let lastTs: number = 0;
for (const channel of ["#eng", "#incidents"]) {
  const posted = await tools.slack__post_message({
    channel,
    text: "Deploys are paused until staging has room.",
  });
  lastTs = posted.ts; // <- error
}
lastTs;
