//! Projects and their knowledge: create, show, rename, remove a project; add and remove the
//! folders and files it knows (scanned by the knowledge index, watched while the app runs);
//! the index's status; search; moving a conversation in or out.

use std::path::{Path, PathBuf};
use std::time::Duration;

pub use tessera_knowledge::search::MAX_HITS;
use tessera_knowledge::{Knowledge, Limits};
pub use tessera_knowledge::{KnowledgeError, KnowledgeHit, KnowledgeStatus};
pub use tessera_store::projects::{NewProject, Project, ProjectPatch, ProjectSourceKind};
pub use tessera_store::StoreError;

use crate::{App, CoreError};

/// Opens the knowledge index of the data folder `dir`.
pub(crate) fn open_knowledge(dir: &Path) -> Result<Knowledge, String> {
    Knowledge::open(dir, Limits::default()).map_err(|e| e.to_string())
}

impl App {
    /// The knowledge index, opened on first use by a command that runs and exits.
    pub fn knowledge(&self) -> Result<&Knowledge, CoreError> {
        self.inner
            .knowledge
            .get_or_init(|| {
                let knowledge = open_knowledge(&self.engine.store().paths().root)?;
                knowledge.set_embedder(crate::embedding::configured(&self.engine));
                Ok(knowledge)
            })
            .as_ref()
            .map_err(|reason| CoreError::KnowledgeUnavailable(reason.clone()))
    }

    /// At start: every project's folders are scanned again (only what changed since is read)
    /// and watched while the app runs.
    pub(crate) fn start_knowledge(&self) -> Result<(), CoreError> {
        let knowledge = self.knowledge()?;
        let mut watched = Vec::new();
        for project in self.engine.store().projects()? {
            for source in &project.sources {
                let path = PathBuf::from(&source.path);
                knowledge.queue_scan(&project.id, &path);
                watched.push((project.id.clone(), path));
            }
        }
        knowledge.watch(watched);
        self.inner
            .watching
            .store(true, std::sync::atomic::Ordering::SeqCst);
        Ok(())
    }

    /// Watches the folders of every project again (after one was added or removed), when this
    /// app watches at all (not a command that exits).
    fn rewatch(&self) -> Result<(), CoreError> {
        if !self
            .inner
            .watching
            .load(std::sync::atomic::Ordering::SeqCst)
        {
            return Ok(());
        }
        let watched = self
            .engine
            .store()
            .projects()?
            .into_iter()
            .flat_map(|p| {
                p.sources
                    .into_iter()
                    .map(move |s| (p.id.clone(), PathBuf::from(s.path)))
            })
            .collect();
        self.knowledge()?.watch(watched);
        Ok(())
    }

    /// Every project, by name.
    pub fn projects(&self) -> Result<Vec<Project>, CoreError> {
        Ok(self.engine.store().projects()?)
    }

    /// The project with this id or name.
    pub fn project(&self, id_or_name: &str) -> Result<Project, CoreError> {
        self.engine
            .store()
            .project(id_or_name)?
            .ok_or_else(|| CoreError::NoProject(id_or_name.to_owned()))
    }

    pub fn create_project(&self, new: NewProject) -> Result<Project, CoreError> {
        Ok(self.engine.store().create_project(new)?)
    }

    pub fn update_project(
        &self,
        id_or_name: &str,
        patch: ProjectPatch,
    ) -> Result<Project, CoreError> {
        self.project(id_or_name)?;
        Ok(self.engine.store().update_project(id_or_name, patch)?)
    }

    /// Removes a project and its index; its conversations stay, in no project.
    pub fn delete_project(&self, id_or_name: &str) -> Result<Project, CoreError> {
        let project = self.project(id_or_name)?;
        let removed = self.engine.store().delete_project(&project.id)?;
        if let Ok(knowledge) = self.knowledge() {
            knowledge.remove_project(&project.id)?;
        }
        self.rewatch()?;
        Ok(removed)
    }

    /// Adds a folder or file to a project's knowledge and queues its scan (a folder the project
    /// knows already is scanned again). Returns the project and the path as kept (absolute,
    /// links resolved).
    pub fn add_knowledge(
        &self,
        id_or_name: &str,
        path: &Path,
    ) -> Result<(Project, PathBuf), CoreError> {
        let project = self.project(id_or_name)?;
        Knowledge::check_source(path)?;
        let real = std::fs::canonicalize(path).map_err(|e| {
            CoreError::Knowledge(KnowledgeError::BadSource {
                path: path.to_owned(),
                reason: e.to_string(),
            })
        })?;
        let kind = if real.is_dir() {
            ProjectSourceKind::Folder
        } else {
            ProjectSourceKind::File
        };
        let text = real.to_string_lossy().into_owned();
        let project = self
            .engine
            .store()
            .add_project_source(&project.id, &text, kind)?;
        self.knowledge()?.queue_scan(&project.id, &real);
        self.rewatch()?;
        Ok((project, real))
    }

    /// Takes a folder or file out of a project's knowledge (and its chunks out of the index).
    pub fn remove_knowledge(&self, id_or_name: &str, path: &Path) -> Result<Project, CoreError> {
        let project = self.project(id_or_name)?;
        let text = path.to_string_lossy();
        // The path as the person typed it, or as it was kept (links resolved).
        let kept = project
            .sources
            .iter()
            .find(|s| s.path == text)
            .or_else(|| {
                let real = std::fs::canonicalize(path).ok()?;
                project.sources.iter().find(|s| Path::new(&s.path) == real)
            })
            .map(|s| s.path.clone())
            .ok_or_else(|| CoreError::NotInProject {
                project: project.name.clone(),
                path: text.into_owned(),
            })?;
        let project = self
            .engine
            .store()
            .remove_project_source(&project.id, &kept)?;
        self.knowledge()?
            .remove_source(&project.id, Path::new(&kept))?;
        self.rewatch()?;
        Ok(project)
    }

    /// The index's state for one project, or for all.
    pub fn knowledge_status(&self, id_or_name: Option<&str>) -> Result<KnowledgeStatus, CoreError> {
        let project = id_or_name.map(|p| self.project(p)).transpose()?;
        Ok(self
            .knowledge()?
            .status(project.as_ref().map(|p| p.id.as_str()))?)
    }

    /// Waits until the index has nothing pending, up to `timeout`; true when it has not.
    pub fn wait_for_knowledge(&self, timeout: Duration) -> Result<bool, CoreError> {
        Ok(self.knowledge()?.wait_idle(timeout))
    }

    /// The chunks of a project that best answer `query`.
    pub fn search_knowledge(
        &self,
        id_or_name: &str,
        query: &str,
        limit: usize,
    ) -> Result<(Project, Vec<KnowledgeHit>), CoreError> {
        let project = self.project(id_or_name)?;
        let hits = self.knowledge()?.search(&project.id, query, limit)?;
        Ok((project, hits))
    }

    /// The model that embeds projects' files, as the setting names it.
    pub fn knowledge_embedding(&self) -> Option<crate::embedding::EmbeddingChoice> {
        crate::embedding::choice(self.engine.store())
    }

    /// Sets (or with None clears) the embedding model and applies it.
    pub fn set_knowledge_embedding(
        &self,
        choice: Option<&crate::embedding::EmbeddingChoice>,
    ) -> Result<(), CoreError> {
        crate::embedding::set_choice(&self.engine, choice)?;
        self.reload_embedder()
    }

    /// Applies the embedding setting as it is now (after it changed).
    pub fn reload_embedder(&self) -> Result<(), CoreError> {
        self.knowledge()?
            .set_embedder(crate::embedding::configured(&self.engine));
        Ok(())
    }

    pub fn pause_knowledge(&self) -> Result<(), CoreError> {
        self.knowledge()?.pause();
        Ok(())
    }

    pub fn resume_knowledge(&self) -> Result<(), CoreError> {
        self.knowledge()?.resume();
        Ok(())
    }

    /// `path` as a file a person may open from a citation: a regular file (links resolved)
    /// inside a folder or file some project knows, of a format the index reads (a document,
    /// never a program or a launcher). Anything else is refused with the reason.
    pub fn project_file(&self, path: &Path) -> Result<PathBuf, CoreError> {
        let refuse = |reason: &str| {
            CoreError::Knowledge(KnowledgeError::BadSource {
                path: path.to_owned(),
                reason: reason.to_owned(),
            })
        };
        let real = std::fs::canonicalize(path).map_err(|e| refuse(&e.to_string()))?;
        if !real.is_file() {
            return Err(refuse("not a regular file"));
        }
        if tessera_knowledge::extract::Format::of(&real).is_none() {
            return Err(refuse("not a document Tessera reads"));
        }
        let known = self.engine.store().projects()?.into_iter().any(|p| {
            p.sources.iter().any(|s| {
                let source = Path::new(&s.path);
                real == source || real.starts_with(source)
            })
        });
        if !known {
            return Err(refuse("not in a folder or file of a project"));
        }
        Ok(real)
    }

    /// Moves a conversation into a project, or with None out of any.
    pub fn move_conversation(
        &self,
        conversation: &str,
        project: Option<&str>,
    ) -> Result<(), CoreError> {
        self.require_conversation(conversation)?;
        let project = project.map(|p| self.project(p)).transpose()?;
        let store = self.engine.store();
        store.set_conversation_project(conversation, project.as_ref().map(|p| p.id.as_str()))?;
        // The project's model, for a conversation that has none of its own.
        if let Some(model) = project.and_then(|p| p.model) {
            if store.conversation_model(conversation)?.is_none() {
                store.set_conversation_model(conversation, Some(model))?;
            }
        }
        Ok(())
    }
}
