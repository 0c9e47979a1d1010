// task: Post the app's current version from /config/app.json to the eng channel, with its channel id.
// expect: ok
// returns: {"channel":"C02","version":"2.3.1"}
const [channels, file] = await Promise.all([
  tools.slack__list_channels(),
  tools.files__read_file({ path: "/config/app.json" }),
]);
const eng = channels.find((c) => c.name === "eng");
const version = file.content.match(/"version": "([\d.]+)"/)[1];

const posted = await tools.slack__post_message({ channel: eng.id, text: `web is at version ${version}` });
return { channel: posted.channel, version };
