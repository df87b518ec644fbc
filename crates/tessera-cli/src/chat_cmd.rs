//! `tessera chat`: one turn with a model from the command line, recorded in the data folder
//! like any conversation. Plain text by default; `--events ndjson` prints the turn's
//! easyflow-chat events, one per line, ending with `system/done`. With `--ask` the model may
//! ask for a form and call tools that need consent: both are asked on the terminal
//! ([`crate::chat_ask`]) and the turn goes on with the answers.

use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::bail;
use tessera_app::StoredEvent;
use tessera_app::{App, ModelOverrides};
use tessera_engine::assembler::Counting;
use tessera_engine::interactions::request_form;
use tessera_engine::tools::ToolRegistry;
use tessera_engine::turn::resume::ResumeInput;
use tessera_engine::turn::{TurnInput, TurnOptions};

use crate::chat_ask::Terminal;
use tessera_protocol::easyflow::{EventBody, SystemState};
use tessera_providers::WireKind;
use tokio_util::sync::CancellationToken;

/// Tools a chat may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ToolSet {
    Builtin,
}

/// How the turn is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum EventsFormat {
    Ndjson,
}

/// Which model to talk to: the flags `tessera chat` and `tessera serve` both take.
#[derive(Clone, Debug, Default, clap::Args)]
pub struct ModelArgs {
    /// A saved provider, or a preset: openai, anthropic, deepseek, qwen, moonshot, ollama, lmstudio,
    /// on-device (a GGUF of the models folder as --model, run on this machine).
    #[arg(long)]
    pub provider: Option<String>,
    /// The wire of an ad-hoc provider: openai (any OpenAI-compatible server) or anthropic.
    #[arg(long, value_parser = parse_kind)]
    pub kind: Option<WireKind>,
    /// The ad-hoc provider's base URL (e.g. http://127.0.0.1:8000/v1).
    #[arg(long)]
    pub base_url: Option<String>,
    /// The model (default: the provider's default model).
    #[arg(long)]
    pub model: Option<String>,
}

fn parse_kind(s: &str) -> Result<WireKind, String> {
    s.parse()
}

impl ModelArgs {
    /// The flags as the core takes them.
    pub fn overrides(&self) -> ModelOverrides {
        ModelOverrides {
            provider: self.provider.clone(),
            kind: self.kind,
            base_url: self.base_url.clone(),
            model: self.model.clone(),
        }
    }
}

/// What `tessera chat` was asked.
#[derive(Debug)]
pub struct ChatArgs {
    pub model: ModelArgs,
    pub events: Option<EventsFormat>,
    pub conversation: Option<String>,
    pub project: Option<String>,
    pub system: Option<String>,
    pub max_tokens: Option<u32>,
    pub tools: Option<ToolSet>,
    pub tool_choice: Option<tessera_providers::ToolChoice>,
    /// Ask the person (on the terminal) for forms and consent.
    pub ask: bool,
    pub text: String,
}

/// Runs the turn; the exit code is 0 when the model answered, 1 otherwise.
pub async fn run(data_dir: &Path, args: ChatArgs) -> anyhow::Result<bool> {
    if args.text.trim().is_empty() {
        bail!("nothing to say: give the message as the last argument");
    }
    let app = App::open_for_command(data_dir, args.model.overrides())?;
    // In a project: a new conversation starts in it (one named by --conversation moves in),
    // and its instructions and files join the prompt.
    let mut conversation = args.conversation.clone();
    if let Some(project) = &args.project {
        app.project(project)?;
        let id = conversation
            .clone()
            .unwrap_or_else(|| uuid::Uuid::now_v7().to_string());
        app.ensure_conversation(&id, &args.text)?;
        app.move_conversation(&id, Some(project))?;
        conversation = Some(id);
    }
    let (client, model) = app.model_client().await?;
    let cancel = CancellationToken::new();
    let on_signal = cancel.clone();
    // While a question waits for a line on the terminal, Ctrl-C ends the command there: the
    // run stays suspended in the conversation, its question answerable in the app.
    let asking = Arc::new(AtomicBool::new(false));
    let asking_now = Arc::clone(&asking);
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            if asking_now.load(Ordering::SeqCst) {
                eprintln!("\ntessera chat: stopped; the question still waits in the conversation");
                std::process::exit(130);
            }
            on_signal.cancel();
        }
    });
    if args.tool_choice.is_some() && args.tools.is_none() && !args.ask {
        bail!("--tool-choice needs --tools (or --ask, for request_form)");
    }
    let tools = match args.tools {
        // With --ask alone the model may still ask for a form.
        None if args.ask => Some(Arc::new(ToolRegistry::new())),
        None => None,
        Some(ToolSet::Builtin) => Some(Arc::new(app.builtin_tools_for(&client, &model)?)),
    };
    if let (Some(tessera_providers::ToolChoice::Tool(name)), Some(registry)) =
        (&args.tool_choice, &tools)
    {
        let asks_for_a_form = args.ask && name == request_form::REQUEST_FORM;
        if registry.get(name).is_none() && !asks_for_a_form {
            let names: Vec<&str> = registry.names().collect();
            bail!(
                "--tool-choice {name}: no such tool; the tools are {}",
                names.join(", ")
            );
        }
    }
    let options = TurnOptions {
        system: args.system.clone(),
        max_tokens: args.max_tokens,
        first_tool_choice: args.tool_choice.clone(),
        tools,
        // A one-shot command: the token tables are not built for a conversation that fits
        // at byte lengths.
        counting: Counting::BytesWhenTheyFit,
        interactions: args.ask,
        context_sources: vec![app.project_context()],
        ..TurnOptions::default()
    };
    let mut stdout = std::io::stdout();
    let mut write_failed = None;
    let events = args.events;
    // The answer is shown as it comes, but not flushed at every delta: a model that sends
    // thousands at once would cost a write to the terminal each. What was written is flushed
    // within a millisecond by this task, and at the end.
    let written = Arc::new(tokio::sync::Notify::new());
    let flusher = tokio::spawn({
        let written = Arc::clone(&written);
        async move {
            loop {
                written.notified().await;
                tokio::time::sleep(std::time::Duration::from_millis(1)).await;
                // A failed write shows at the next one, or at the end.
                let _ = std::io::stdout().flush();
            }
        }
    });
    let mut print = |stored: StoredEvent| {
        let result = match events {
            // The text as stored is the event serialised: not serialised again.
            Some(EventsFormat::Ndjson) => writeln!(stdout, "{}", stored.json()),
            None => match &stored.event.body {
                EventBody::LlmMessage(p) => p.delta.as_deref().map_or(Ok(()), |d| {
                    write!(stdout, "{d}").map(|()| written.notify_one())
                }),
                _ => Ok(()),
            },
        };
        if let Err(err) = result {
            write_failed.get_or_insert(err);
        }
    };
    let mut outcome = app
        .run_one_turn(
            &client,
            TurnInput {
                attachments: &[],
                message_id: None,
                conversation: conversation.as_deref(),
                text: &args.text,
                said: Default::default(),
                model: &model,
                options: &options,
                run_id: None,
            },
            cancel.clone(),
            &mut print,
        )
        .await?;
    // What the turn asks is asked on the terminal; the turn goes on once all is answered.
    // Only the turn's first model call had its tool choice forced.
    let resumed = TurnOptions {
        first_tool_choice: None,
        ..options.clone()
    };
    while args.ask && outcome.state == SystemState::Suspended && !cancel.is_cancelled() {
        let waiting = app.waiting_in_turn(&outcome.conversation_id, &outcome.run_id)?;
        if waiting.is_empty() {
            break;
        }
        let _ = std::io::stdout().flush();
        asking.store(true, Ordering::SeqCst);
        let asked = tokio::task::block_in_place(|| -> anyhow::Result<()> {
            let mut terminal = Terminal {
                input: std::io::stdin().lock(),
                output: std::io::stderr(),
            };
            for interaction in &waiting {
                terminal.ask(interaction, |answer| {
                    app.answer_held(&interaction.interaction_id, answer)
                        .map(drop)
                })?;
            }
            Ok(())
        });
        asking.store(false, Ordering::SeqCst);
        asked?;
        outcome = app
            .resume_one_turn(
                &client,
                ResumeInput {
                    conversation_id: &outcome.conversation_id,
                    run_id: &outcome.run_id,
                    model: &model,
                    options: &resumed,
                },
                cancel.clone(),
                &mut print,
            )
            .await?;
    }
    flusher.abort();
    if events.is_none() && !outcome.response.text.is_empty() {
        let _ = writeln!(stdout);
    }
    if let Err(err) = stdout.flush() {
        write_failed.get_or_insert(err);
    }
    if let Some(err) = write_failed {
        bail!("cannot write the answer: {err}");
    }
    if let Some(err) = &outcome.error {
        if events.is_none() {
            eprintln!("tessera chat: {err}");
        }
    }
    Ok(outcome.state == SystemState::Completed)
}
