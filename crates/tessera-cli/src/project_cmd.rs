//! `tessera project …` and `tessera knowledge …`: projects, and their folders as knowledge.
//! The command opens the data folder itself (no server may hold it), so `knowledge add` scans
//! in this process and waits for the scan, printing its progress on standard error.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use clap::Subcommand;
use tessera_app::projects::{KnowledgeStatus, NewProject, Project};
use tessera_app::views::projects::KnowledgeSearch;
use tessera_app::{error_chain, App, CoreError};

use tessera_app::data_dir::default_data_dir;

#[derive(Debug, Subcommand)]
pub enum ProjectCommand {
    /// Create a project.
    Create {
        name: String,
        /// Instructions added to the system prompt of its conversations.
        #[arg(long)]
        instructions: Option<String>,
    },
    /// List the projects.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Show a project: instructions, folders, the state of its index.
    Show {
        /// Its name or id.
        name: String,
        #[arg(long)]
        json: bool,
    },
    /// Remove a project and its index; its conversations are kept, outside any project.
    Rm {
        /// Its name or id.
        name: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum KnowledgeCommand {
    /// Add a folder or file to a project's knowledge (a folder it knows is scanned again);
    /// waits for the scan, with its progress on standard error.
    Add {
        path: PathBuf,
        #[arg(long)]
        project: String,
    },
    /// Take a folder or file out of a project's knowledge.
    Rm {
        path: PathBuf,
        #[arg(long)]
        project: String,
    },
    /// Files indexed, skipped (with the reason), pending; bytes and chunks.
    Status {
        #[arg(long)]
        project: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// The passages of a project's files that best match a query: path, lines or page, score,
    /// text.
    Search {
        query: String,
        #[arg(long)]
        project: String,
        /// Most hits.
        #[arg(long, default_value_t = 10)]
        limit: usize,
        #[arg(long)]
        json: bool,
    },
}

/// Why a command failed: its usage (exit 2) or the work (exit 1).
enum Failure {
    Usage(String),
    Work(String),
}

impl From<CoreError> for Failure {
    fn from(err: CoreError) -> Self {
        match err {
            CoreError::NoProject(_)
            | CoreError::NotInProject { .. }
            | CoreError::Knowledge(_)
            | CoreError::Store(tessera_app::StoreError::InvalidProject { .. })
            | CoreError::Store(tessera_app::StoreError::AlreadyExists { .. }) => {
                Failure::Usage(error_chain(&err))
            }
            other => Failure::Work(error_chain(&other)),
        }
    }
}

fn with_app(
    data_dir: Option<PathBuf>,
    what: &str,
    work: impl FnOnce(&App) -> Result<(), Failure>,
) -> ExitCode {
    let Some(dir) = data_dir.or_else(default_data_dir) else {
        eprintln!("tessera {what}: no home folder to keep data in; pass --data-dir DIR");
        return ExitCode::from(2);
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(err) => {
            eprintln!("tessera {what}: cannot start the async runtime: {err}");
            return ExitCode::from(2);
        }
    };
    let _entered = runtime.enter();
    let app = match App::open_for_command(&dir, Default::default()) {
        Ok(app) => app,
        Err(err) => {
            eprintln!("tessera {what}: {}", error_chain(&err));
            return ExitCode::from(2);
        }
    };
    let result = work(&app);
    if let Ok(knowledge) = app.knowledge() {
        knowledge.shutdown();
    }
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(message)) => {
            eprintln!("tessera {what}: {message}");
            ExitCode::from(2)
        }
        Err(Failure::Work(message)) => {
            eprintln!("tessera {what}: {message}");
            ExitCode::from(1)
        }
    }
}

fn print_json(value: &impl serde::Serialize) -> Result<(), Failure> {
    let text = serde_json::to_string_pretty(value).map_err(|e| Failure::Work(e.to_string()))?;
    println!("{text}");
    Ok(())
}

/// Runs `tessera project …`.
pub fn project_main(data_dir: Option<PathBuf>, cmd: ProjectCommand) -> ExitCode {
    let what = match &cmd {
        ProjectCommand::Create { .. } => "project create",
        ProjectCommand::List { .. } => "project list",
        ProjectCommand::Show { .. } => "project show",
        ProjectCommand::Rm { .. } => "project rm",
    };
    with_app(data_dir, what, |app| match cmd {
        ProjectCommand::Create { name, instructions } => {
            let project = app.create_project(NewProject {
                name,
                instructions: instructions.unwrap_or_default(),
                model: None,
            })?;
            println!("created project {} ({})", project.name, project.id);
            Ok(())
        }
        ProjectCommand::List { json } => {
            let projects = app.projects()?;
            if json {
                return print_json(&serde_json::json!({ "projects": projects }));
            }
            if projects.is_empty() {
                println!("no project yet: tessera project create NAME");
            }
            for p in &projects {
                println!(
                    "{}\t{} folder(s) and file(s)\t{} conversation(s)",
                    p.name,
                    p.sources.len(),
                    p.conversations
                );
            }
            Ok(())
        }
        ProjectCommand::Show { name, json } => {
            let project = app.project(&name)?;
            let status = app.knowledge_status(Some(&project.id))?;
            if json {
                return print_json(&serde_json::json!({ "project": project, "knowledge": status }));
            }
            show_project(&project, &status);
            Ok(())
        }
        ProjectCommand::Rm { name } => {
            let project = app.delete_project(&name)?;
            println!(
                "removed project {}; its {} conversation(s) are kept, outside any project",
                project.name, project.conversations
            );
            Ok(())
        }
    })
}

fn show_project(project: &Project, status: &KnowledgeStatus) {
    println!("{} ({})", project.name, project.id);
    if !project.instructions.is_empty() {
        println!("instructions: {}", project.instructions);
    }
    if let Some(model) = &project.model {
        println!("model: {} {}", model.provider, model.model);
    }
    println!("conversations: {}", project.conversations);
    if project.sources.is_empty() {
        println!(
            "folders: none yet (tessera knowledge add PATH --project {:?})",
            project.name
        );
    }
    for source in &project.sources {
        println!("folder: {}", source.path);
    }
    print_status(status);
}

fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1_000_000.0)
}

fn print_status(status: &KnowledgeStatus) {
    println!(
        "indexed: {} file(s), {} chunk(s), {} of text; skipped: {}; {}",
        status.indexed_files,
        status.chunks,
        megabytes(status.bytes),
        status.skipped_files,
        if status.idle {
            "nothing pending".to_owned()
        } else {
            format!("{} pending", status.pending)
        }
    );
    println!("retrieval: {}", status.retrieval);
    for skipped in &status.skipped {
        println!("skipped: {}: {}", skipped.path, skipped.reason);
    }
}

/// Waits for the index, printing progress on standard error about once a second.
fn wait_with_progress(app: &App) -> Result<(), Failure> {
    let mut last = Instant::now();
    loop {
        if app.wait_for_knowledge(Duration::from_millis(500))? {
            return Ok(());
        }
        if last.elapsed() >= Duration::from_secs(1) {
            last = Instant::now();
            if let Some(p) = app.knowledge_status(None)?.scanning {
                let total = p.total.map_or_else(|| "?".to_owned(), |t| t.to_string());
                let left = p
                    .seconds_left
                    .map_or_else(String::new, |s| format!(", about {s:.0} s left"));
                eprintln!(
                    "scanning {}: {}/{total} files, {:.0} files/s{left}",
                    p.source, p.done, p.files_per_second
                );
            }
        }
    }
}

/// Runs `tessera knowledge …`.
pub fn knowledge_main(data_dir: Option<PathBuf>, cmd: KnowledgeCommand) -> ExitCode {
    let what = match &cmd {
        KnowledgeCommand::Add { .. } => "knowledge add",
        KnowledgeCommand::Rm { .. } => "knowledge rm",
        KnowledgeCommand::Status { .. } => "knowledge status",
        KnowledgeCommand::Search { .. } => "knowledge search",
    };
    with_app(data_dir, what, |app| match cmd {
        KnowledgeCommand::Add { path, project } => {
            let path = absolute(&path)?;
            let (project, kept) = app.add_knowledge(&project, &path)?;
            wait_with_progress(app)?;
            let status = app.knowledge_status(Some(&project.id))?;
            println!("{} is in project {}", kept.display(), project.name);
            print_status(&status);
            Ok(())
        }
        KnowledgeCommand::Rm { path, project } => {
            let path = absolute(&path)?;
            let project = app.remove_knowledge(&project, &path)?;
            println!("{} left project {}", path.display(), project.name);
            Ok(())
        }
        KnowledgeCommand::Status { project, json } => {
            let status = app.knowledge_status(project.as_deref())?;
            if json {
                return print_json(&status);
            }
            print_status(&status);
            Ok(())
        }
        KnowledgeCommand::Search {
            query,
            project,
            limit,
            json,
        } => {
            let limit = limit.clamp(1, tessera_app::projects::MAX_HITS);
            let (project, hits) = app.search_knowledge(&project, &query, limit)?;
            let retrieval = app.knowledge_status(Some(&project.id))?.retrieval;
            if json {
                return print_json(&KnowledgeSearch {
                    project: project.name,
                    query,
                    hits,
                    retrieval,
                });
            }
            if hits.is_empty() {
                println!("nothing found");
            }
            for hit in &hits {
                println!("{}  (score {:.2})", hit.citation(), hit.score);
                for line in hit.text.lines().take(6) {
                    println!("    {line}");
                }
            }
            Ok(())
        }
    })
}

/// A path made absolute against the working folder (the person typed it relative to it).
fn absolute(path: &Path) -> Result<PathBuf, Failure> {
    std::path::absolute(path).map_err(|e| Failure::Usage(format!("{}: {e}", path.display())))
}

#[derive(Debug, Subcommand)]
pub enum MemoryCommand {
    /// The memories: of one conversation, of a project, and of every conversation.
    List {
        /// Only this scope: conversation, project or everywhere.
        #[arg(long, value_parser = ["conversation", "project", "everywhere"])]
        scope: Option<String>,
        /// Only those that hold these words.
        #[arg(long)]
        search: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Forget a memory by its id (as `memory list` prints it): no later prompt includes it.
    Forget { id: String },
}

/// Runs `tessera memory …`.
pub fn memory_main(data_dir: Option<PathBuf>, cmd: MemoryCommand) -> ExitCode {
    use tessera_app::memories::MemoryScope;
    let what = match &cmd {
        MemoryCommand::List { .. } => "memory list",
        MemoryCommand::Forget { .. } => "memory forget",
    };
    with_app(data_dir, what, |app| match cmd {
        MemoryCommand::List {
            scope,
            search,
            json,
        } => {
            let scope = scope.as_deref().and_then(MemoryScope::parse);
            let memories = app.memories(scope, search.as_deref())?;
            if json {
                return print_json(&serde_json::json!({ "memories": memories }));
            }
            if memories.is_empty() {
                println!("no memory");
            }
            for m in &memories {
                let from = m
                    .source_conversation_id
                    .as_deref()
                    .map_or_else(String::new, |c| format!("  (from conversation {c})"));
                println!("{}\t{}\t{}{from}", m.id, m.scope.as_str(), m.content);
            }
            Ok(())
        }
        MemoryCommand::Forget { id } => {
            let memory = app.forget_memory(&id).map_err(|err| match err {
                CoreError::NoMemory(_) => Failure::Usage(error_chain(&err)),
                other => Failure::from(other),
            })?;
            println!("forgot: {}", memory.content);
            Ok(())
        }
    })
}
