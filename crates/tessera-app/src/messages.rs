//! Saying something in a conversation: the person's message becomes a run (a new one, the
//! answer to the same message sent again, or a run on another branch), followed from its first
//! event.

use tessera_engine::engine::{
    ConversationModel, EngineError, RunOverrides, SaidBefore, StartedRun, Subscription, UserMessage,
};
use tessera_protocol::mcp_cp::{Attachment, FinishReason};
use tessera_protocol::request::Role;

use crate::{App, CoreError};

/// A message of the person's, as a client sent it.
#[derive(Debug, Clone)]
pub struct NewMessage {
    pub conversation: String,
    /// The id the stored message takes (the client's `messageId`).
    pub id: String,
    pub text: String,
    pub attachments: Vec<Attachment>,
    /// Ask for the run's `debug/log` events.
    pub debug: bool,
    /// Where the text goes in the conversation's tree.
    pub placement: Placement,
    /// The model it is answered with.
    pub pick: ModelPick,
    /// The project (name or id) the conversation is in from this message on: a new
    /// conversation starts in it, so its first prompt has the project's context.
    pub project: Option<String>,
}

/// Where a message goes in its conversation's tree of messages.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Placement {
    /// After the branch shown.
    #[default]
    Next,
    /// After this message, on a new branch (editing a message and resending it names the
    /// edited message's parent).
    After(String),
    /// At the start: the conversation begins anew (the branch it leaves stays).
    Anew,
}

impl Placement {
    /// The message it follows on a new branch: None when it follows the branch shown, or
    /// `Some(None)` when it starts the conversation anew.
    fn parent(&self) -> Option<Option<&str>> {
        match self {
            Self::Next => None,
            Self::After(id) => Some(Some(id)),
            Self::Anew => Some(None),
        }
    }
}

/// The model a message is answered with.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum ModelPick {
    /// The conversation's own, if it has one, else the default provider's.
    #[default]
    Kept,
    /// This provider's model, from now on.
    Chosen(ConversationModel),
    /// Back to the default provider's: the conversation forgets its own.
    Default,
}

/// A seed-003 request's run: the model named, the conversation's history when it has none,
/// the person's last words and what the request sets for its run alone.
#[derive(Debug, Clone)]
pub struct RequestedRun {
    pub conversation: String,
    /// `model`: any configured provider's model, by name without regard to case.
    pub model: String,
    /// The earlier user/assistant resources, the history of a conversation that has none yet.
    pub history: Vec<(Role, String)>,
    pub text: String,
    pub overrides: RunOverrides,
}

impl App {
    /// Starts the run a seed-003 request asks for, followed from its start.
    pub async fn start_requested_run(
        &self,
        request: RequestedRun,
    ) -> Result<(StartedRun, Subscription), CoreError> {
        let engine = &self.engine;
        let conversation = request.conversation.as_str();
        let pick = engine.model_named(&request.model)?;
        // A message that cannot fit the model's window even alone creates nothing.
        engine.check_message_fits(
            Some(conversation),
            pick.as_ref().map(Some),
            &request.text,
            request.overrides.max_tokens,
        )?;
        self.ensure_conversation(conversation, &request.text)?;
        if pick.is_some() {
            engine.prepare_model(conversation, pick).await?;
        }
        engine.seed_history(conversation, &request.history)?;
        let said = UserMessage {
            overrides: request.overrides,
            ..UserMessage::text(&request.text)
        };
        self.start_run(conversation, said)
    }

    /// Answers the person's message: a new message starts a run; the same message sent again
    /// (a client retrying after a lost answer) is answered as the first time, never twice; a
    /// stored message never answered is answered now; other content under a used id is
    /// refused. The subscription holds the answering run's events from its first.
    pub async fn send_message(
        &self,
        message: NewMessage,
    ) -> Result<(StartedRun, Subscription), CoreError> {
        let engine = &self.engine;
        let conversation = message.conversation.as_str();
        if let Some(project) = &message.project {
            // Named before anything is written: an unknown project creates nothing.
            self.project(project)?;
        }
        self.ready_model(conversation, &message.pick).await?;
        let pick = match &message.pick {
            ModelPick::Kept => None,
            ModelPick::Chosen(pick) => Some(Some(pick)),
            ModelPick::Default => Some(None),
        };
        // A message that cannot fit the model's window even alone creates nothing.
        engine.check_message_fits(Some(conversation), pick, &message.text, None)?;
        // Read and stored before the conversation exists: a refused file creates nothing.
        let attachments = engine.read_attachments(message.attachments).await?;
        let said = UserMessage {
            text: message.text.clone(),
            attachments,
            id: Some(message.id.clone()),
            debug: message.debug,
            overrides: Default::default(),
        };
        Ok(match engine.said_before(conversation, &said)? {
            SaidBefore::Answered { run, first_seq } => {
                let sub = engine.subscribe(conversation, Some(first_seq.saturating_sub(1)))?;
                (run, sub)
            }
            SaidBefore::Unanswered => {
                self.refuse_while_running(conversation, "answering the message again")?;
                self.start_followed(conversation, || {
                    engine.regenerate(conversation, &message.id)
                })?
            }
            SaidBefore::New => {
                if matches!(message.placement, Placement::Next | Placement::Anew) {
                    self.ensure_conversation(conversation, &message.text)?;
                    if let Some(project) = &message.project {
                        self.move_conversation(conversation, Some(project))?;
                    }
                    if matches!(message.pick, ModelPick::Chosen(_)) {
                        self.ready_model(conversation, &message.pick).await?;
                    }
                }
                match message.placement.parent() {
                    None => self.start_run(conversation, said)?,
                    Some(parent) => {
                        self.refuse_while_running(
                            conversation,
                            "sending a message on another branch",
                        )?;
                        self.start_followed(conversation, || {
                            engine.start_run_after(conversation, parent, said)
                        })?
                    }
                }
            }
        })
    }

    /// Starts a run for `said` in `conversation` (created when new), followed from its start.
    pub fn start_run(
        &self,
        conversation: &str,
        said: UserMessage,
    ) -> Result<(StartedRun, Subscription), CoreError> {
        self.ensure_conversation(conversation, &said.text)?;
        self.start_followed(conversation, || {
            self.engine.start_run_with(Some(conversation), said)
        })
    }

    /// Starts a run of the existing `conversation` with `launch`, subscribed from just
    /// before it, so the subscription holds this run's events only.
    pub fn start_followed(
        &self,
        conversation: &str,
        launch: impl FnOnce() -> Result<StartedRun, EngineError>,
    ) -> Result<(StartedRun, Subscription), CoreError> {
        let after = self
            .engine
            .store()
            .read(|r| r.last_event_seq(conversation))?;
        let sub = self.engine.subscribe(conversation, Some(after))?;
        let run = launch()?;
        Ok((run, sub))
    }

    /// The events of `conversation` after seq `after` (all of them, None), then live.
    pub fn subscribe(
        &self,
        conversation: &str,
        after: Option<u64>,
    ) -> Result<Subscription, CoreError> {
        Ok(self.engine.subscribe(conversation, after)?)
    }

    /// Cancels run `run_id`: its partial answer is kept, its running tools stop.
    pub fn cancel_run(&self, run_id: &str) -> Result<(), CoreError> {
        if self.engine.cancel(run_id) {
            Ok(())
        } else {
            Err(CoreError::RunNotRunning(run_id.to_owned()))
        }
    }

    /// Quitting: cancels every run (each keeps its partial answer and writes its end) and waits
    /// up to `grace` for them to finish writing, so no run is left half-written. Blocks: call it
    /// where the process ends (the desktop's exit handler).
    pub fn shut_down(&self, grace: std::time::Duration) {
        for run in self.engine.running() {
            tracing::info!(run = %run.run_id, "cancelling a run: the app is quitting");
            self.engine.cancel(&run.run_id);
        }
        let deadline = std::time::Instant::now() + grace;
        while !self.engine.running().is_empty() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// Readies the model the run will use, or forgets the conversation's own (null): before
    /// anything is created, and again after, to keep a pick.
    async fn ready_model(&self, conversation: &str, pick: &ModelPick) -> Result<(), CoreError> {
        match pick {
            ModelPick::Default => {
                if self.has_conversation(conversation)? {
                    self.engine.clear_conversation_model(conversation)?;
                }
            }
            ModelPick::Chosen(pick) => {
                self.engine
                    .prepare_model(conversation, Some(pick.clone()))
                    .await?;
            }
            ModelPick::Kept => {
                self.engine.prepare_model(conversation, None).await?;
            }
        }
        Ok(())
    }

    /// Why the stored answer `message_id` ended, as its last model call said (seed 000 §3.2:
    /// LENGTH when the token limit cut it); STOP when it says nothing.
    pub fn finish_reason(&self, conversation: &str, message_id: Option<&str>) -> FinishReason {
        message_id
            .and_then(|id| self.engine.store().message(conversation, id).ok().flatten())
            .and_then(|m| m.message.extra.get("finish_reason").cloned())
            .and_then(|v| serde_json::from_value::<FinishReason>(v).ok())
            .filter(|r| *r != FinishReason::ToolCalls)
            .unwrap_or(FinishReason::Stop)
    }
}
