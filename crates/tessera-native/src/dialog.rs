//! File dialogs: the shell opens its own (with the window as parent); [`CommandDialog`] runs a
//! command instead, which is how the desktop suite (and a person scripting the app) replaces the
//! dialog: `TESSERA_FILE_DIALOG=/path/to/program`.

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;

/// The variable naming a program that stands in for the file dialogs.
pub const DIALOG_COMMAND_VAR: &str = "TESSERA_FILE_DIALOG";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FileFilter {
    pub name: String,
    /// Without the dot: `png`, `md`.
    pub extensions: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PickRequest {
    pub title: Option<String>,
    pub multiple: bool,
    pub filters: Vec<FileFilter>,
    /// A folder, not a file (filters do not apply).
    pub folder: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SaveRequest {
    pub title: Option<String>,
    pub suggested_name: String,
}

#[derive(Debug, thiserror::Error)]
pub enum DialogError {
    #[error("the file dialog could not be shown: {0}")]
    Failed(String),
}

pub type DialogFuture<T> = Pin<Box<dyn Future<Output = Result<T, DialogError>> + Send>>;

/// Asks the person for files. An empty pick or `None` means they cancelled.
pub trait FileDialog: Send + Sync {
    fn pick(&self, request: PickRequest) -> DialogFuture<Vec<PathBuf>>;
    fn save(&self, request: SaveRequest) -> DialogFuture<Option<PathBuf>>;
}

/// A program as the dialog: `PROGRAM open [--multiple] [--title T] [--filter NAME:ext,ext]…`
/// or `PROGRAM save [--title T] --name SUGGESTED` prints the chosen paths, one per line;
/// nothing printed (or a non-zero exit) is a cancel.
#[derive(Clone, Debug)]
pub struct CommandDialog {
    pub program: PathBuf,
}

impl CommandDialog {
    /// The program `TESSERA_FILE_DIALOG` names, if any.
    pub fn from_env() -> Option<Self> {
        std::env::var_os(DIALOG_COMMAND_VAR)
            .filter(|v| !v.is_empty())
            .map(|program| Self {
                program: program.into(),
            })
    }

    async fn run(&self, args: Vec<String>) -> Result<Vec<PathBuf>, DialogError> {
        let output = tokio::process::Command::new(&self.program)
            .args(&args)
            .stdin(std::process::Stdio::null())
            .output()
            .await
            .map_err(|e| DialogError::Failed(format!("{}: {e}", self.program.display())))?;
        if !output.status.success() {
            return Ok(Vec::new());
        }
        Ok(String::from_utf8_lossy(&output.stdout)
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(PathBuf::from)
            .collect())
    }
}

impl FileDialog for CommandDialog {
    fn pick(&self, request: PickRequest) -> DialogFuture<Vec<PathBuf>> {
        let this = self.clone();
        Box::pin(async move {
            let mut args = vec![if request.folder { "folder" } else { "open" }.to_owned()];
            if request.multiple {
                args.push("--multiple".into());
            }
            if let Some(title) = request.title {
                args.extend(["--title".into(), title]);
            }
            for filter in request.filters {
                args.extend([
                    "--filter".into(),
                    format!("{}:{}", filter.name, filter.extensions.join(",")),
                ]);
            }
            let mut picked = this.run(args).await?;
            if !request.multiple {
                picked.truncate(1);
            }
            Ok(picked)
        })
    }

    fn save(&self, request: SaveRequest) -> DialogFuture<Option<PathBuf>> {
        let this = self.clone();
        Box::pin(async move {
            let mut args = vec!["save".to_owned()];
            if let Some(title) = request.title {
                args.extend(["--title".into(), title]);
            }
            args.extend(["--name".into(), request.suggested_name]);
            Ok(this.run(args).await?.into_iter().next())
        })
    }
}
