// task: How old is acme/web#103, and is its milestone due soon (as of 9 June 2025)?
// expect: ok
// returns: {"title":"Crash when uploading a large avatar","ageDays":19,"milestone":"v2.4","daysLeft":21}
const issue = await tools.github__get_issue({ repo: "acme/web", number: 103 });
const asOf = new Date("2025-06-09T00:00:00Z");
const ageDays = Math.floor((asOf.getTime() - new Date(issue.created_at).getTime()) / 86_400_000);

const due = issue.milestone?.due_on;
const daysLeft = due ? Math.ceil((Date.parse(due) - asOf.getTime()) / 86_400_000) : null;
return { title: issue.title, ageDays, milestone: issue.milestone?.title ?? "none", daysLeft };
