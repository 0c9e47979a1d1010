// task: Bump the patch version in /config/app.json and turn on dark mode.
// expect: ok
// returns: {"version":"2.3.2","bytes":171}
interface AppConfig {
  name: string;
  version: string;
  features: Record<string, boolean>;
  maxUploadMb: number;
}

const file = await tools.files__read_file({ path: "/config/app.json" });
const config = JSON.parse(file.content) as AppConfig;

const [major, minor, patch] = config.version.split(".").map(Number);
config.version = `${major}.${minor}.${patch + 1}`;
config.features.darkMode = true;

const written = await tools.files__write_file({
  path: "/config/app.json",
  content: JSON.stringify(config, null, 2) + "\n",
});
return { version: config.version, bytes: written.bytes_written };
