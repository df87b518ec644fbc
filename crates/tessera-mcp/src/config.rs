//! Which MCP servers to use: `mcp.json` in the data folder, in the `mcpServers` shape other
//! apps use (Claude Desktop, Cursor; VS Code's `servers` is read too), so people can paste what
//! they already have. A secret value (a token in `env`, an `Authorization` header) never stays
//! in the file: it moves to the OS keyring and the file keeps [`KEYRING_MARK`] in its place.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};
use tessera_protocol::secrets::{redact_args, redact_url, secret_args, SecretArg, REDACTED};

/// What the file holds in place of a secret kept in the keyring.
pub const KEYRING_MARK: &str = "${keyring}";

/// How long a server may take to start (spawn, handshake, first tool list) by default.
pub const DEFAULT_STARTUP_SECS: u64 = 10;
/// How long one tool call may take by default: long enough for the person to answer a form
/// the server asks for meanwhile.
pub const DEFAULT_CALL_SECS: u64 = 600;

/// How to reach a server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Transport {
    /// A child process speaking MCP on stdin/stdout.
    Stdio {
        command: String,
        args: Vec<String>,
        /// Values, or [`KEYRING_MARK`] for a secret.
        env: BTreeMap<String, String>,
        cwd: Option<String>,
    },
    /// Streamable HTTP.
    Http {
        url: String,
        headers: BTreeMap<String, String>,
    },
}

/// One configured server.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServerConfig {
    pub name: String,
    pub transport: Transport,
    pub disabled: bool,
    /// The person trusts none of the server's claims (`alwaysAsk`): every call of its tools
    /// asks, whatever its annotations say.
    pub always_ask: bool,
    pub startup_timeout_secs: u64,
    pub call_timeout_secs: u64,
}

impl ServerConfig {
    /// Where the server lives, as recorded with each call (seed 004 `provider.uri`), logged
    /// and shown: its command line or URL with every secret taken out (values after a
    /// secret-named flag, values that look like keys, URL user info and query values).
    pub fn uri(&self) -> String {
        match &self.transport {
            Transport::Stdio { command, args, .. } => {
                let mut line = format!("stdio:{command}");
                for arg in redact_args(args) {
                    line.push(' ');
                    line.push_str(&arg.replace(KEYRING_MARK, REDACTED));
                }
                line
            }
            // The file keeps a URL held in the secret store as the mark and its redacted
            // form; the person is shown the redacted form alone.
            Transport::Http { url, .. } => redact_url(&url.replace(KEYRING_MARK, "")),
        }
    }

    /// Whether `other` starts the same program with the same arguments, or reaches the same
    /// URL (secrets kept in the keyring compare by their place): what a grant was given to.
    pub fn same_endpoint(&self, other: &ServerConfig) -> bool {
        match (&self.transport, &other.transport) {
            (
                Transport::Stdio { command, args, .. },
                Transport::Stdio {
                    command: c2,
                    args: a2,
                    ..
                },
            ) => command == c2 && args == a2,
            (Transport::Http { url, .. }, Transport::Http { url: u2, .. }) => url == u2,
            _ => false,
        }
    }

    /// Where each secret kept in the keyring goes: env or header names, argument indices,
    /// parts of the URL.
    pub fn secret_names(&self) -> Vec<(SecretPlace, String)> {
        let mut out = Vec::new();
        let (place, map) = match &self.transport {
            Transport::Stdio { env, .. } => (SecretPlace::Env, env),
            Transport::Http { headers, .. } => (SecretPlace::Header, headers),
        };
        out.extend(
            map.iter()
                .filter(|(_, v)| v.as_str() == KEYRING_MARK)
                .map(|(k, _)| (place, k.clone())),
        );
        match &self.transport {
            Transport::Stdio { args, .. } => out.extend(
                args.iter()
                    .enumerate()
                    .filter(|(_, a)| a.contains(KEYRING_MARK))
                    .map(|(i, _)| (SecretPlace::Arg, i.to_string())),
            ),
            Transport::Http { url, .. } => {
                if url.contains(KEYRING_MARK) {
                    out.push((SecretPlace::Url, "url".to_owned()));
                }
            }
        }
        out
    }
}

/// Where a secret goes when the server starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SecretPlace {
    Env,
    Header,
    /// A command-line argument, by index (the whole argument, or what follows `=`).
    Arg,
    /// The URL's secret parts (user info, query values), kept together.
    Url,
}

impl SecretPlace {
    fn as_str(self) -> &'static str {
        match self {
            SecretPlace::Env => "env",
            SecretPlace::Header => "header",
            SecretPlace::Arg => "arg",
            SecretPlace::Url => "url",
        }
    }
}

/// The keyring entry of one secret of one server.
pub fn keyring_account(server: &str, place: SecretPlace, name: &str) -> String {
    format!("mcp/{server}/{}/{name}", place.as_str())
}

/// A value that should never be written to a file: by the name it is given (a token, a key,
/// a password, credentials, an `Authorization` header) or by its look (`Bearer …`, a URL
/// with a password such as a `DATABASE_URL`).
pub fn looks_secret(name: &str, value: &str) -> bool {
    use tessera_protocol::secrets::{has_url_password, is_secret_name, looks_like_secret_value};
    value != KEYRING_MARK
        && !value.is_empty()
        && (is_secret_name(name) || looks_like_secret_value(value) || has_url_password(value))
}

/// A config that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("{path}: {message}")]
    Bad { path: String, message: String },
    #[error("cannot read or write {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

fn bad(path: impl Into<String>, message: impl Into<String>) -> ConfigError {
    ConfigError::Bad {
        path: path.into(),
        message: message.into(),
    }
}

/// A server's name becomes part of its tools' names (`server__tool`): letters, digits, `-` and
/// `_`, at most 32.
pub fn check_name(name: &str) -> Result<(), ConfigError> {
    let fine = !name.is_empty()
        && name.len() <= 32
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && !name.contains("__")
        // `a_` + `b` and `a` + `_b` would both name a tool `a___b`.
        && !name.ends_with('_');
    if fine {
        Ok(())
    } else {
        Err(bad(
            format!("mcpServers.{name}"),
            "a server's name is 1–32 letters, digits, `-` or `_` (no `__`, not ending in `_`): it prefixes its tools' names",
        ))
    }
}

fn strings(at: &str, value: Option<&Value>) -> Result<Vec<String>, ConfigError> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| {
                v.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| bad(format!("{at}[{i}]"), "must be a string"))
            })
            .collect(),
        Some(_) => Err(bad(at, "must be an array of strings")),
    }
}

fn string_map(at: &str, value: Option<&Value>) -> Result<BTreeMap<String, String>, ConfigError> {
    match value {
        None | Some(Value::Null) => Ok(BTreeMap::new()),
        Some(Value::Object(map)) => map
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                Value::Number(n) => Ok((k.clone(), n.to_string())),
                Value::Bool(b) => Ok((k.clone(), b.to_string())),
                _ => Err(bad(format!("{at}.{k}"), "must be a string")),
            })
            .collect(),
        Some(_) => Err(bad(at, "must be an object of strings")),
    }
}

fn seconds(at: &str, value: Option<&Value>, default: u64) -> Result<u64, ConfigError> {
    match value {
        None | Some(Value::Null) => Ok(default),
        Some(v) => v
            .as_u64()
            .filter(|s| *s > 0)
            .ok_or_else(|| bad(at, "must be a whole number of seconds above 0")),
    }
}

/// The program of a `command` and the arguments typed after it. People type a whole command
/// line (`npx -y @scope/server`) where a program is asked for, and a program of that name
/// does not exist: the line is split as a shell would (quotes and backslashes respected), its
/// arguments going before those of `args`. A path to a program that has spaces in its name
/// is kept whole.
fn program_and_arguments(at: &str, command: &str) -> Result<(String, Vec<String>), ConfigError> {
    let trimmed = command.trim();
    if !trimmed.contains(char::is_whitespace) || Path::new(trimmed).is_file() {
        return Ok((trimmed.to_owned(), Vec::new()));
    }
    let mut words = split_command_line(trimmed).ok_or_else(|| {
        bad(
            at,
            "has a quote that is never closed; put the program alone in the command and each \
             argument on its own line in the arguments",
        )
    })?;
    if words.is_empty() {
        return Err(bad(at, "names no program"));
    }
    let program = words.remove(0);
    Ok((program, words))
}

/// Splits a command line into words as a POSIX shell does for plain words: whitespace
/// separates, `'…'` is literal, `"…"` keeps spaces (a backslash escapes `"`, `\\`, `$` and
/// `` ` ``), a backslash outside quotes escapes the next character. None when a quote is left
/// open.
fn split_command_line(line: &str) -> Option<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        c => word.push(c),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => match chars.next()? {
                            c @ ('"' | '\\' | '$' | '`') => word.push(c),
                            c => {
                                word.push('\\');
                                word.push(c);
                            }
                        },
                        c => word.push(c),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(c) = chars.next() {
                    word.push(c);
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Some(words)
}

/// Reads one server of the `mcpServers` shape: `{command, args, env, cwd}` or `{url, headers}`
/// (`type` stdio / http / streamable-http / sse, optional), plus `disabled`, `alwaysAsk`,
/// `startupTimeout` and `timeout` (seconds).
pub fn parse_server(name: &str, value: &Value) -> Result<ServerConfig, ConfigError> {
    check_name(name)?;
    let at = format!("mcpServers.{name}");
    let Some(object) = value.as_object() else {
        return Err(bad(at, "must be an object"));
    };
    let kind = object.get("type").and_then(Value::as_str);
    let command = object.get("command").and_then(Value::as_str);
    let url = object.get("url").and_then(Value::as_str);
    let transport = match (kind, command, url) {
        (Some("sse"), _, _) => {
            return Err(bad(
                format!("{at}.type"),
                "the old SSE transport is not supported; use the server's streamable HTTP URL",
            ))
        }
        (Some("stdio") | None, Some(command), _) if !command.trim().is_empty() => {
            let (command, mut args) = program_and_arguments(&format!("{at}.command"), command)?;
            args.extend(strings(&format!("{at}.args"), object.get("args"))?);
            Transport::Stdio {
                command,
                args,
                env: string_map(&format!("{at}.env"), object.get("env"))?,
                cwd: object.get("cwd").and_then(Value::as_str).map(str::to_owned),
            }
        }
        (Some("http" | "streamable-http" | "streamableHttp") | None, _, Some(url)) => {
            if !(url.starts_with("http://") || url.starts_with("https://")) {
                return Err(bad(
                    format!("{at}.url"),
                    "must be an http:// or https:// URL",
                ));
            }
            Transport::Http {
                url: url.to_owned(),
                headers: string_map(&format!("{at}.headers"), object.get("headers"))?,
            }
        }
        (Some(other), _, _) if !matches!(other, "stdio" | "http" | "streamable-http") => {
            return Err(bad(
                format!("{at}.type"),
                format!("`{other}` is not a transport (stdio or http)"),
            ))
        }
        _ => {
            return Err(bad(
                at,
                "needs `command` (a program to start) or `url` (a streamable HTTP endpoint)",
            ))
        }
    };
    Ok(ServerConfig {
        name: name.to_owned(),
        transport,
        disabled: object
            .get("disabled")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        always_ask: match object.get("alwaysAsk") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return Err(bad(
                    format!("{at}.alwaysAsk"),
                    format!("must be true or false, not {other}"),
                ))
            }
        },
        startup_timeout_secs: seconds(
            &format!("{at}.startupTimeout"),
            object.get("startupTimeout"),
            DEFAULT_STARTUP_SECS,
        )?,
        call_timeout_secs: seconds(
            &format!("{at}.timeout"),
            object.get("timeout"),
            DEFAULT_CALL_SECS,
        )?,
    })
}

/// Reads a pasted or stored document: `{"mcpServers": {…}}`, `{"servers": {…}}`, or the map
/// of servers itself.
pub fn parse_document(document: &Value) -> Result<Vec<ServerConfig>, ConfigError> {
    let servers = document
        .get("mcpServers")
        .or_else(|| document.get("servers"))
        .unwrap_or(document);
    let Some(map) = servers.as_object() else {
        return Err(bad(
            "mcpServers",
            "must be an object of servers by name, as in {\"mcpServers\": {\"name\": {\"command\": …}}}",
        ));
    };
    map.iter().map(|(name, v)| parse_server(name, v)).collect()
}

/// One server in the `mcpServers` shape, as the file keeps it.
pub fn to_document_entry(server: &ServerConfig) -> Value {
    let mut out = Map::new();
    match &server.transport {
        Transport::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            out.insert("command".into(), Value::String(command.clone()));
            out.insert("args".into(), serde_json::json!(args));
            if !env.is_empty() {
                out.insert("env".into(), serde_json::json!(env));
            }
            if let Some(cwd) = cwd {
                out.insert("cwd".into(), Value::String(cwd.clone()));
            }
        }
        Transport::Http { url, headers } => {
            out.insert("type".into(), Value::String("http".into()));
            out.insert("url".into(), Value::String(url.clone()));
            if !headers.is_empty() {
                out.insert("headers".into(), serde_json::json!(headers));
            }
        }
    }
    if server.disabled {
        out.insert("disabled".into(), Value::Bool(true));
    }
    if server.always_ask {
        out.insert("alwaysAsk".into(), Value::Bool(true));
    }
    if server.startup_timeout_secs != DEFAULT_STARTUP_SECS {
        out.insert("startupTimeout".into(), server.startup_timeout_secs.into());
    }
    if server.call_timeout_secs != DEFAULT_CALL_SECS {
        out.insert("timeout".into(), server.call_timeout_secs.into());
    }
    Value::Object(out)
}

/// Takes the secrets out of `server`: each is returned (its place, name and value) and
/// replaced by [`KEYRING_MARK`]: secret env values and headers, secret arguments (or the
/// value part of `--token=…`), and a URL with user info or a query (kept whole in the
/// keyring; the file keeps its redacted form with the mark).
pub fn split_secrets(server: &mut ServerConfig) -> Vec<(SecretPlace, String, String)> {
    let mut taken = Vec::new();
    let (place, map) = match &mut server.transport {
        Transport::Stdio { env, .. } => (SecretPlace::Env, env),
        Transport::Http { headers, .. } => (SecretPlace::Header, headers),
    };
    for (name, value) in map.iter_mut() {
        if looks_secret(name, value) {
            taken.push((
                place,
                name.clone(),
                std::mem::replace(value, KEYRING_MARK.into()),
            ));
        }
    }
    match &mut server.transport {
        Transport::Stdio { args, .. } => {
            for (i, at) in secret_args(args) {
                let arg = &mut args[i];
                let start = match at {
                    SecretArg::Whole => 0,
                    SecretArg::ValueFrom(start) => start,
                };
                if arg[start..].contains(KEYRING_MARK) {
                    continue;
                }
                let value = arg.split_off(start);
                arg.push_str(KEYRING_MARK);
                taken.push((SecretPlace::Arg, i.to_string(), value));
            }
        }
        Transport::Http { url, .. } => {
            let shown = redact_url(url);
            if shown != *url && !url.contains(KEYRING_MARK) {
                let real = std::mem::replace(url, format!("{KEYRING_MARK}{shown}"));
                taken.push((SecretPlace::Url, "url".to_owned(), real));
            }
        }
    }
    taken
}

/// The file in the data folder.
pub fn file_path(data_dir: &Path) -> PathBuf {
    data_dir.join("mcp.json")
}

/// The servers of the file (none when there is no file).
pub fn load(path: &Path) -> Result<Vec<ServerConfig>, ConfigError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(ConfigError::Io {
                path: path.to_owned(),
                source,
            })
        }
    };
    let document: Value = serde_json::from_str(&text).map_err(|e| {
        bad(
            path.display().to_string(),
            format!("not valid JSON ({e}); fix or remove the file"),
        )
    })?;
    parse_document(&document)
}

/// Writes the servers to the file (atomically: a crash leaves the old file or the new one).
pub fn save(path: &Path, servers: &[ServerConfig]) -> Result<(), ConfigError> {
    let mut map = Map::new();
    for server in servers {
        map.insert(server.name.clone(), to_document_entry(server));
    }
    let document = serde_json::json!({ "mcpServers": map });
    let text = serde_json::to_string_pretty(&document).unwrap_or_default();
    let io = |source| ConfigError::Io {
        path: path.to_owned(),
        source,
    };
    let temp = path.with_extension("json.tmp");
    // Private whatever the umask: server names, commands and keyring marks.
    let mut file = tessera_store::file_modes::private_file()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&temp)
        .map_err(io)?;
    std::io::Write::write_all(&mut file, (text + "\n").as_bytes())
        .and_then(|()| file.sync_all())
        .map_err(io)?;
    tessera_store::file_modes::tighten(&temp, tessera_store::file_modes::FILE_MODE).map_err(io)?;
    std::fs::rename(&temp, path).map_err(io)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use serde_json::json;

    #[test]
    fn a_pasted_claude_desktop_config_is_read() {
        let servers = parse_document(&json!({"mcpServers": {
            "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
                        "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_abc", "LOG_LEVEL": "info"}},
            "remote": {"type": "http", "url": "https://mcp.example.com/mcp",
                        "headers": {"Authorization": "Bearer xyz", "X-Client": "tessera"}}
        }}))
        .unwrap();
        assert_eq!(servers.len(), 2);
        assert_eq!(servers[0].name, "github");
        assert!(
            matches!(&servers[1].transport, Transport::Http { url, .. } if url == "https://mcp.example.com/mcp")
        );
    }

    #[test]
    fn secrets_are_split_out_and_marked() {
        let mut servers = parse_document(&json!({"mcpServers": {
            "github": {"command": "gh-mcp", "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_abc", "LOG_LEVEL": "info"}},
            "remote": {"url": "https://x.example/mcp", "headers": {"Authorization": "Bearer xyz", "X-Client": "t"}}
        }}))
        .unwrap();
        let taken: Vec<_> = servers.iter_mut().flat_map(split_secrets).collect();
        assert_eq!(
            taken,
            vec![
                (
                    SecretPlace::Env,
                    "GITHUB_PERSONAL_ACCESS_TOKEN".into(),
                    "ghp_abc".into()
                ),
                (
                    SecretPlace::Header,
                    "Authorization".into(),
                    "Bearer xyz".into()
                ),
            ]
        );
        let written = serde_json::to_string(&to_document_entry(&servers[0])).unwrap();
        assert!(!written.contains("ghp_abc"), "{written}");
        assert!(written.contains("LOG_LEVEL"));
        assert_eq!(
            servers[1].secret_names(),
            vec![(SecretPlace::Header, "Authorization".to_owned())]
        );
    }

    #[test]
    fn secret_arguments_and_url_parts_leave_the_file_and_every_identity() {
        let mut servers = parse_document(&json!({"mcpServers": {
            "cli": {"command": "srv", "args": ["--port", "1", "--token", "hunter2",
                                                "--api-key=abc123", "ghp_0123456789abcdefghij"]},
            "web": {"url": "https://me:pw@x.example/mcp?access_token=tok&v=2"}
        }}))
        .unwrap();
        for server in &servers {
            let uri = server.uri();
            for secret in ["hunter2", "abc123", "ghp_0123", ":pw@", "=tok"] {
                assert!(!uri.contains(secret), "{uri}");
            }
        }
        let before = servers.clone();
        let taken: Vec<_> = servers.iter_mut().flat_map(split_secrets).collect();
        let places: Vec<(SecretPlace, &str, &str)> = taken
            .iter()
            .map(|(p, n, v)| (*p, n.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            places,
            vec![
                (SecretPlace::Arg, "3", "hunter2"),
                (SecretPlace::Arg, "4", "abc123"),
                (SecretPlace::Arg, "5", "ghp_0123456789abcdefghij"),
                (
                    SecretPlace::Url,
                    "url",
                    "https://me:pw@x.example/mcp?access_token=tok&v=2"
                ),
            ]
        );
        let written =
            serde_json::to_string(&servers.iter().map(to_document_entry).collect::<Vec<_>>())
                .unwrap();
        for secret in ["hunter2", "abc123", "ghp_0123", ":pw@", "=tok"] {
            assert!(!written.contains(secret), "{written}");
        }
        assert!(written.contains("--api-key=${keyring}"), "{written}");
        // Splitting again takes nothing more; the endpoint is still the same one.
        let mut again = servers.clone();
        assert!(again.iter_mut().flat_map(split_secrets).next().is_none());
        assert!(servers[0].same_endpoint(&again[0]));
        assert!(!servers[0].same_endpoint(&before[0]));
        assert_eq!(
            servers[0].secret_names(),
            vec![
                (SecretPlace::Arg, "3".to_owned()),
                (SecretPlace::Arg, "4".to_owned()),
                (SecretPlace::Arg, "5".to_owned())
            ]
        );
    }

    #[test]
    fn a_command_line_typed_as_the_command_is_split_as_a_shell_would() {
        let server = |entry: Value| parse_server("s", &entry).unwrap();
        let Transport::Stdio { command, args, .. } = server(
            json!({"command": "npx -y @modelcontextprotocol/server-github", "args": ["--x"]}),
        )
        .transport
        else {
            panic!("stdio");
        };
        assert_eq!(command, "npx");
        assert_eq!(args, ["-y", "@modelcontextprotocol/server-github", "--x"]);
        assert_eq!(
            split_command_line(r#"uvx 'a b' "c \"d\" $e" f\ g"#).unwrap(),
            ["uvx", "a b", r#"c "d" $e"#, "f g"]
        );
        assert_eq!(split_command_line("  ").unwrap(), Vec::<String>::new());
        assert!(split_command_line("npx 'open").is_none());
        // A program whose path has a space is not split.
        let dir = tempfile::tempdir().unwrap();
        let program = dir.path().join("my server");
        std::fs::write(&program, "").unwrap();
        let Transport::Stdio { command, args, .. } =
            server(json!({"command": program.to_str().unwrap()})).transport
        else {
            panic!("stdio");
        };
        assert_eq!(command, program.to_str().unwrap());
        assert!(args.is_empty());
        let err = parse_server("s", &json!({"command": "npx \"x"})).unwrap_err();
        assert!(
            err.to_string().starts_with("mcpServers.s.command:"),
            "{err}"
        );
    }

    #[test]
    fn bad_entries_name_what_is_wrong() {
        let err = parse_document(&json!({"mcpServers": {"a b": {"command": "x"}}})).unwrap_err();
        assert!(err.to_string().contains("mcpServers.a b"), "{err}");
        let err = parse_document(&json!({"mcpServers": {"x": {"args": []}}})).unwrap_err();
        assert!(err.to_string().contains("needs `command`"), "{err}");
        let err = parse_document(&json!({"mcpServers": {"x": {"command": "y", "args": "z"}}}))
            .unwrap_err();
        assert!(err.to_string().contains("mcpServers.x.args"), "{err}");
    }

    #[test]
    fn the_file_round_trips_and_a_missing_file_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        let path = file_path(dir.path());
        assert!(load(&path).unwrap().is_empty());
        let servers = parse_document(&json!({"mcpServers": {
            "fs": {"command": "node", "args": ["fs.js", "/tmp"], "timeout": 30}
        }}))
        .unwrap();
        save(&path, &servers).unwrap();
        assert_eq!(load(&path).unwrap(), servers);
    }
}
