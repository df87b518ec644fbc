//! The desktop app's command line: the data folder and the model overrides `tessera chat`
//! takes. Read by hand so the shell carries no argument-parsing framework; a wrong flag gets
//! a message naming it and exit code 2.

use std::ffi::OsString;
use std::path::PathBuf;

use tessera_app::{ModelOverrides, WireKind};

const USAGE: &str = "\
Tessera, a desktop AI agent: the desktop app

Usage: tessera-desktop [OPTIONS]

Options:
      --data-dir <DIR>       The data folder (default: ~/.local/share/dev.tessera.desktop,
                             shared with `tessera`) [env: TESSERA_DATA_DIR=]
      --provider <PROVIDER>  A saved provider, or a preset: openai, anthropic, deepseek, qwen,
                             moonshot, ollama, lmstudio
      --kind <KIND>          The wire of an ad-hoc provider: openai (any OpenAI-compatible
                             server) or anthropic
      --base-url <BASE_URL>  The ad-hoc provider's base URL (e.g. http://127.0.0.1:8000/v1)
      --model <MODEL>        The model (default: the provider's default model)
  -h, --help                 Print help
  -V, --version              Print version
";

/// What the desktop app was started with.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct DesktopArgs {
    /// `--data-dir` (or `TESSERA_DATA_DIR`); None: the usual folder.
    pub data_dir: Option<PathBuf>,
    pub model: ModelOverrides,
}

/// What the command line asked for.
#[derive(Debug, PartialEq, Eq)]
pub enum Parsed {
    Run(DesktopArgs),
    /// `--help` or `--version`: the text to print, then exit 0.
    Print(String),
}

/// Reads `args` (without the program name); `env_data_dir` is `TESSERA_DATA_DIR`.
pub fn parse(
    args: impl IntoIterator<Item = OsString>,
    env_data_dir: Option<OsString>,
) -> Result<Parsed, String> {
    let mut out = DesktopArgs {
        data_dir: env_data_dir.filter(|v| !v.is_empty()).map(PathBuf::from),
        ..DesktopArgs::default()
    };
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let Some(text) = arg.to_str() else {
            return Err(format!("unexpected argument `{}`", arg.to_string_lossy()));
        };
        match text {
            "-h" | "--help" => return Ok(Parsed::Print(USAGE.to_owned())),
            "-V" | "--version" => {
                return Ok(Parsed::Print(format!(
                    "tessera-desktop {}\n",
                    env!("CARGO_PKG_VERSION")
                )))
            }
            _ => {}
        }
        let (flag, inline) = match text.split_once('=') {
            Some((flag, value)) if flag.starts_with("--") => (flag, Some(OsString::from(value))),
            _ => (text, None),
        };
        if !matches!(
            flag,
            "--data-dir" | "--provider" | "--kind" | "--base-url" | "--model"
        ) {
            return Err(format!(
                "unexpected argument `{text}`\n\nFor more information, try '--help'."
            ));
        }
        let value = match inline.or_else(|| args.next()) {
            Some(value) => value,
            None => return Err(format!("a value is required for `{flag} <VALUE>`")),
        };
        let value_text = || {
            value
                .to_str()
                .map(str::to_owned)
                .ok_or_else(|| format!("the value of `{flag}` is not valid text"))
        };
        match flag {
            "--data-dir" => out.data_dir = Some(PathBuf::from(&value)),
            "--provider" => out.model.provider = Some(value_text()?),
            "--kind" => {
                let kind: WireKind = value_text()?
                    .parse()
                    .map_err(|err: String| format!("invalid value for `--kind`: {err}"))?;
                out.model.kind = Some(kind);
            }
            "--base-url" => out.model.base_url = Some(value_text()?),
            _ => out.model.model = Some(value_text()?),
        }
    }
    Ok(Parsed::Run(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    #[test]
    fn reads_the_folder_and_the_model_in_both_spellings() {
        let parsed = parse(
            args(&[
                "--data-dir",
                "/d",
                "--kind=openai",
                "--base-url",
                "http://127.0.0.1:9/v1",
                "--model=m",
            ]),
            None,
        );
        let Ok(Parsed::Run(run)) = parsed else {
            panic!("not a run: {parsed:?}");
        };
        assert_eq!(run.data_dir, Some(PathBuf::from("/d")));
        assert_eq!(run.model.kind, Some(WireKind::Openai));
        assert_eq!(run.model.base_url.as_deref(), Some("http://127.0.0.1:9/v1"));
        assert_eq!(run.model.model.as_deref(), Some("m"));
    }

    #[test]
    fn the_flag_wins_over_the_variable() {
        let from_env = parse(args(&[]), Some("/env".into()));
        assert_eq!(
            from_env,
            Ok(Parsed::Run(DesktopArgs {
                data_dir: Some("/env".into()),
                ..DesktopArgs::default()
            }))
        );
        let Ok(Parsed::Run(run)) = parse(args(&["--data-dir", "/flag"]), Some("/env".into()))
        else {
            panic!("not a run");
        };
        assert_eq!(run.data_dir, Some(PathBuf::from("/flag")));
    }

    #[test]
    fn a_wrong_flag_or_value_is_named() {
        let unknown = parse(args(&["--colour", "red"]), None).unwrap_err();
        assert!(unknown.contains("`--colour`"), "{unknown}");
        let missing = parse(args(&["--model"]), None).unwrap_err();
        assert!(missing.contains("--model"), "{missing}");
        let kind = parse(args(&["--kind", "cobol"]), None).unwrap_err();
        assert!(kind.contains("--kind"), "{kind}");
        assert!(
            matches!(parse(args(&["--help"]), None), Ok(Parsed::Print(t)) if t.contains("--data-dir"))
        );
    }
}
