//! Start-up: runs the last process left unfinished. A run that was going on when the process
//! died is closed as interrupted (its partial answer kept, its unfinished calls never run
//! again); a run waiting for the person keeps waiting, its expiry armed again; a run whose
//! answers all came but did not resume yet resumes now.

use super::{Engine, EngineError};
use crate::turn::close::{close_run, CloseReason};
use crate::turn::resume::{standing, RunStanding};

/// What [`Engine::recover`] found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recovered {
    /// Runs closed as interrupted.
    pub interrupted: Vec<String>,
    /// Runs still waiting for the person.
    pub waiting: Vec<String>,
    /// Runs resumed because their answers had come.
    pub resumed: Vec<String>,
}

impl Engine {
    /// Settles what the previous process left unfinished. Call once at start-up, before any
    /// run starts.
    pub fn recover(&self) -> Result<Recovered, EngineError> {
        let mut report = Recovered::default();
        for (conversation, run) in self.store.unfinished_runs()? {
            let events = self.store.run_events(&conversation, &run)?;
            match standing(&events) {
                RunStanding::Ended => {}
                RunStanding::Running => {
                    for event in
                        close_run(&self.store, &conversation, &run, CloseReason::Interrupted)?
                    {
                        self.bus.publish(&conversation, event);
                    }
                    report.interrupted.push(run);
                }
                RunStanding::Suspended => match self.resume_if_ready(&conversation, &run) {
                    Ok(true) => report.resumed.push(run),
                    Ok(false) | Err(EngineError::NoModel) => {
                        self.arm_expiry(&conversation, &run);
                        report.waiting.push(run);
                    }
                    Err(other) => return Err(other),
                },
            }
        }
        Ok(report)
    }
}
