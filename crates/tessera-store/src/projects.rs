//! Projects: a name, instructions added to the system prompt of its conversations, a default
//! model, the folders and files it knows (its knowledge, and its MCP `roots`), and the
//! conversations that point to it. Removing a project keeps its conversations: they leave the
//! project (the foreign key sets them free), nothing a person wrote is lost.

use rusqlite::{params, Row};
use serde::{Deserialize, Serialize};
use tessera_protocol::wire::Timestamp;

use crate::conversation_model::ConversationModel;
use crate::conversations::ensure_exists;
use crate::error::{Entity, Result, StoreError};
use crate::rows::{self, FromRow};
use crate::tx::{ReadTx, WriteTx};
use crate::{clock, ids, sql, Store};

pub(crate) const SCHEMA_V10: &str = "
CREATE TABLE projects (
    id            TEXT PRIMARY KEY NOT NULL,
    name          TEXT NOT NULL UNIQUE COLLATE NOCASE,
    instructions  TEXT NOT NULL DEFAULT '',
    model_json    TEXT,
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL
) STRICT;
CREATE TABLE project_sources (
    project_id    TEXT NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    path          TEXT NOT NULL,
    kind          TEXT NOT NULL,
    added_at      TEXT NOT NULL,
    PRIMARY KEY (project_id, path)
) STRICT;
ALTER TABLE conversations ADD COLUMN project_id TEXT REFERENCES projects (id) ON DELETE SET NULL;
CREATE INDEX conversations_by_project ON conversations (project_id);
";

/// Longest project name, in characters.
pub const MAX_NAME_CHARS: usize = 80;
/// Longest instructions, in characters (they go into every prompt of the project).
pub const MAX_INSTRUCTIONS_CHARS: usize = 20_000;
/// Most folders and files one project knows.
pub const MAX_SOURCES: usize = 64;

/// A folder or a single file a project knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ProjectSourceKind {
    Folder,
    File,
}

impl ProjectSourceKind {
    fn as_str(self) -> &'static str {
        match self {
            Self::Folder => "folder",
            Self::File => "file",
        }
    }

    fn parse(text: &str) -> Result<Self> {
        match text {
            "folder" => Ok(Self::Folder),
            "file" => Ok(Self::File),
            other => Err(StoreError::Corrupt {
                what: "project source kind",
                message: format!("{other:?}"),
            }),
        }
    }
}

/// One folder or file of a project, by its absolute path.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct ProjectSource {
    pub path: String,
    pub kind: ProjectSourceKind,
    pub added_at: Timestamp,
}

/// A project as the list and the API show it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ts_rs::TS)]
pub struct Project {
    pub id: String,
    pub name: String,
    pub instructions: String,
    /// The model its new conversations use, when it has one of its own.
    pub model: Option<ConversationModel>,
    pub sources: Vec<ProjectSource>,
    /// How many conversations point to it.
    pub conversations: u64,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// A project to create.
#[derive(Clone, Debug, Default)]
pub struct NewProject {
    pub name: String,
    pub instructions: String,
    pub model: Option<ConversationModel>,
}

/// Changes to a project; `None` leaves a field as it is.
#[derive(Clone, Debug, Default)]
pub struct ProjectPatch {
    pub name: Option<String>,
    pub instructions: Option<String>,
    pub model: Option<Option<ConversationModel>>,
}

/// Why a project's name or instructions were refused.
fn invalid(field: &'static str, reason: impl Into<String>) -> StoreError {
    StoreError::InvalidProject {
        field,
        reason: reason.into(),
    }
}

/// The name as kept: trimmed; refused when empty, too long, or holding control characters.
pub fn checked_name(name: &str) -> Result<String> {
    let name = name.trim();
    if name.is_empty() {
        return Err(invalid("name", "is empty"));
    }
    if name.chars().count() > MAX_NAME_CHARS {
        return Err(invalid(
            "name",
            format!("is longer than {MAX_NAME_CHARS} characters"),
        ));
    }
    if name.chars().any(char::is_control) {
        return Err(invalid("name", "holds a control character"));
    }
    Ok(name.to_owned())
}

fn checked_instructions(text: &str) -> Result<String> {
    if text.chars().count() > MAX_INSTRUCTIONS_CHARS {
        return Err(invalid(
            "instructions",
            format!("are longer than {MAX_INSTRUCTIONS_CHARS} characters"),
        ));
    }
    Ok(text.to_owned())
}

const COLUMNS: &str = "p.id, p.name, p.instructions, p.model_json, p.created_at, p.updated_at,
     (SELECT count(*) FROM conversations c WHERE c.project_id = p.id)";

/// A project's row of [`COLUMNS`]; its folders are another table's ([`ProjectRow::stored`]).
struct ProjectRow(Project);

impl FromRow for ProjectRow {
    fn from_row(row: &Row<'_>) -> Result<Self> {
        Ok(Self(Project {
            id: row.get(0)?,
            name: row.get(1)?,
            instructions: row.get(2)?,
            model: sql::opt_parse("project model", row.get(3)?)?,
            sources: Vec::new(),
            created_at: Timestamp::new(row.get::<_, String>(4)?),
            updated_at: Timestamp::new(row.get::<_, String>(5)?),
            conversations: row.get::<_, i64>(6)?.try_into().unwrap_or(0),
        }))
    }
}

impl ProjectRow {
    /// The project with its folders.
    fn stored(self, conn: &rusqlite::Connection) -> Result<Project> {
        let mut project = self.0;
        project.sources = sources(conn, &project.id)?;
        Ok(project)
    }
}

/// A row of `path, kind, added_at`.
impl FromRow for ProjectSource {
    fn from_row(row: &Row<'_>) -> Result<Self> {
        Ok(ProjectSource {
            path: row.get(0)?,
            kind: ProjectSourceKind::parse(&row.get::<_, String>(1)?)?,
            added_at: Timestamp::new(row.get::<_, String>(2)?),
        })
    }
}

fn sources(conn: &rusqlite::Connection, project_id: &str) -> Result<Vec<ProjectSource>> {
    rows::all(
        conn,
        "SELECT path, kind, added_at FROM project_sources WHERE project_id = ?1 ORDER BY path",
        [project_id],
    )
}

fn get(conn: &rusqlite::Connection, id_or_name: &str) -> Result<Option<Project>> {
    rows::optional::<ProjectRow>(
        conn,
        &format!(
            "SELECT {COLUMNS} FROM projects p WHERE p.id = ?1 OR p.name = ?1 COLLATE NOCASE
             ORDER BY p.id = ?1 DESC LIMIT 1"
        ),
        [id_or_name],
    )?
    .map(|row| row.stored(conn))
    .transpose()
}

fn require(conn: &rusqlite::Connection, id_or_name: &str) -> Result<Project> {
    get(conn, id_or_name)?.ok_or_else(|| StoreError::NotFound {
        entity: Entity::Project,
        conversation_id: None,
        id: id_or_name.to_owned(),
    })
}

fn name_taken(conn: &rusqlite::Connection, name: &str, other_than: Option<&str>) -> Result<bool> {
    Ok(rows::optional::<String>(
        conn,
        "SELECT id FROM projects WHERE name = ?1 COLLATE NOCASE",
        [name],
    )?
    .is_some_and(|id| Some(id.as_str()) != other_than))
}

fn touch(conn: &rusqlite::Connection, id: &str) -> Result<()> {
    conn.prepare_cached("UPDATE projects SET updated_at = ?2 WHERE id = ?1")?
        .execute(params![id, clock::now().as_str()])?;
    Ok(())
}

impl ReadTx<'_> {
    /// Every project, by name.
    pub fn projects(&self) -> Result<Vec<Project>> {
        rows::all::<ProjectRow>(
            self.conn,
            &format!("SELECT {COLUMNS} FROM projects p ORDER BY p.name COLLATE NOCASE, p.id"),
            [],
        )?
        .into_iter()
        .map(|row| row.stored(self.conn))
        .collect()
    }

    /// The project with this id, or else this name (names are unique, case aside).
    pub fn project(&self, id_or_name: &str) -> Result<Option<Project>> {
        get(self.conn, id_or_name)
    }

    /// The project conversation `id` belongs to, if any.
    pub fn conversation_project(&self, id: &str) -> Result<Option<Project>> {
        let project_id = rows::optional::<Option<String>>(
            self.conn,
            "SELECT project_id FROM conversations WHERE id = ?1",
            [id],
        )?
        .ok_or_else(|| StoreError::NotFound {
            entity: Entity::Conversation,
            conversation_id: None,
            id: id.to_owned(),
        })?;
        match project_id {
            Some(project_id) => get(self.conn, &project_id),
            None => Ok(None),
        }
    }
}

impl WriteTx<'_> {
    /// Creates a project; a name another project has (case aside) is refused.
    pub fn create_project(&mut self, new: NewProject) -> Result<Project> {
        let name = checked_name(&new.name)?;
        let instructions = checked_instructions(&new.instructions)?;
        if name_taken(self.conn, &name, None)? {
            return Err(StoreError::AlreadyExists {
                entity: Entity::Project,
                conversation_id: None,
                id: name,
            });
        }
        let id = ids::new_id();
        let now = clock::now();
        self.conn
            .prepare_cached(
                "INSERT INTO projects (id, name, instructions, model_json, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?5)",
            )?
            .execute(params![
                id,
                name,
                instructions,
                sql::opt_json("project model", new.model.as_ref())?,
                now.as_str()
            ])?;
        require(self.conn, &id)
    }

    /// Renames a project, changes its instructions or its model.
    pub fn update_project(&mut self, id_or_name: &str, patch: ProjectPatch) -> Result<Project> {
        let project = require(self.conn, id_or_name)?;
        if let Some(name) = patch.name {
            let name = checked_name(&name)?;
            if name_taken(self.conn, &name, Some(&project.id))? {
                return Err(StoreError::AlreadyExists {
                    entity: Entity::Project,
                    conversation_id: None,
                    id: name,
                });
            }
            self.conn
                .prepare_cached("UPDATE projects SET name = ?2 WHERE id = ?1")?
                .execute(params![project.id, name])?;
        }
        if let Some(instructions) = patch.instructions {
            let instructions = checked_instructions(&instructions)?;
            self.conn
                .prepare_cached("UPDATE projects SET instructions = ?2 WHERE id = ?1")?
                .execute(params![project.id, instructions])?;
        }
        if let Some(model) = patch.model {
            self.conn
                .prepare_cached("UPDATE projects SET model_json = ?2 WHERE id = ?1")?
                .execute(params![
                    project.id,
                    sql::opt_json("project model", model.as_ref())?
                ])?;
        }
        touch(self.conn, &project.id)?;
        require(self.conn, &project.id)
    }

    /// Removes a project; its conversations stay, outside any project. Returns what it was.
    pub fn delete_project(&mut self, id_or_name: &str) -> Result<Project> {
        let project = require(self.conn, id_or_name)?;
        self.conn
            .prepare_cached("DELETE FROM projects WHERE id = ?1")?
            .execute([&project.id])?;
        Ok(project)
    }

    /// Adds a folder or file (an absolute path) to what a project knows. Adding it again
    /// changes nothing and is not an error (a person adds a folder again to scan it again).
    pub fn add_project_source(
        &mut self,
        id_or_name: &str,
        path: &str,
        kind: ProjectSourceKind,
    ) -> Result<Project> {
        let project = require(self.conn, id_or_name)?;
        let known = project.sources.iter().any(|s| s.path == path);
        if !known && project.sources.len() >= MAX_SOURCES {
            return Err(invalid(
                "sources",
                format!("a project knows at most {MAX_SOURCES} folders and files"),
            ));
        }
        self.conn
            .prepare_cached(
                "INSERT INTO project_sources (project_id, path, kind, added_at)
                 VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (project_id, path) DO UPDATE SET kind = excluded.kind",
            )?
            .execute(params![
                project.id,
                path,
                kind.as_str(),
                clock::now().as_str()
            ])?;
        touch(self.conn, &project.id)?;
        require(self.conn, &project.id)
    }

    /// Takes a folder or file out of a project; one it does not know is NotFound.
    pub fn remove_project_source(&mut self, id_or_name: &str, path: &str) -> Result<Project> {
        let project = require(self.conn, id_or_name)?;
        let removed = self
            .conn
            .prepare_cached("DELETE FROM project_sources WHERE project_id = ?1 AND path = ?2")?
            .execute(params![project.id, path])?;
        if removed == 0 {
            return Err(StoreError::NotFound {
                entity: Entity::ProjectSource,
                conversation_id: None,
                id: path.to_owned(),
            });
        }
        touch(self.conn, &project.id)?;
        require(self.conn, &project.id)
    }

    /// Moves a conversation into a project, or with None out of any.
    pub fn set_conversation_project(
        &mut self,
        conversation_id: &str,
        project: Option<&str>,
    ) -> Result<()> {
        ensure_exists(self.conn, conversation_id)?;
        let project_id = project
            .map(|p| require(self.conn, p).map(|p| p.id))
            .transpose()?;
        self.conn
            .prepare_cached("UPDATE conversations SET project_id = ?2 WHERE id = ?1")?
            .execute(params![conversation_id, project_id])?;
        Ok(())
    }
}

impl Store {
    /// See [`ReadTx::projects`].
    pub fn projects(&self) -> Result<Vec<Project>> {
        self.read(|r| r.projects())
    }

    /// See [`ReadTx::project`].
    pub fn project(&self, id_or_name: &str) -> Result<Option<Project>> {
        let id_or_name = id_or_name.to_owned();
        self.read(move |r| r.project(&id_or_name))
    }

    /// See [`ReadTx::conversation_project`].
    pub fn conversation_project(&self, conversation_id: &str) -> Result<Option<Project>> {
        self.read(|r| r.conversation_project(conversation_id))
    }

    /// See [`WriteTx::create_project`].
    pub fn create_project(&self, new: NewProject) -> Result<Project> {
        self.write(move |tx| tx.create_project(new))
    }

    /// See [`WriteTx::update_project`].
    pub fn update_project(&self, id_or_name: &str, patch: ProjectPatch) -> Result<Project> {
        let id_or_name = id_or_name.to_owned();
        self.write(move |tx| tx.update_project(&id_or_name, patch))
    }

    /// See [`WriteTx::delete_project`].
    pub fn delete_project(&self, id_or_name: &str) -> Result<Project> {
        let id_or_name = id_or_name.to_owned();
        self.write(move |tx| tx.delete_project(&id_or_name))
    }

    /// See [`WriteTx::add_project_source`].
    pub fn add_project_source(
        &self,
        id_or_name: &str,
        path: &str,
        kind: ProjectSourceKind,
    ) -> Result<Project> {
        let (id_or_name, path) = (id_or_name.to_owned(), path.to_owned());
        self.write(move |tx| tx.add_project_source(&id_or_name, &path, kind))
    }

    /// See [`WriteTx::remove_project_source`].
    pub fn remove_project_source(&self, id_or_name: &str, path: &str) -> Result<Project> {
        let (id_or_name, path) = (id_or_name.to_owned(), path.to_owned());
        self.write(move |tx| tx.remove_project_source(&id_or_name, &path))
    }

    /// See [`WriteTx::set_conversation_project`].
    pub fn set_conversation_project(
        &self,
        conversation_id: &str,
        project: Option<&str>,
    ) -> Result<()> {
        let conversation_id = conversation_id.to_owned();
        let project = project.map(str::to_owned);
        self.write(move |tx| tx.set_conversation_project(&conversation_id, project.as_deref()))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::conversations::NewConversation;

    fn new(name: &str) -> NewProject {
        NewProject {
            name: name.into(),
            instructions: "Answer in French.".into(),
            model: None,
        }
    }

    #[test]
    fn a_project_keeps_its_folders_and_conversations_and_leaves_them_when_removed() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        let p = store.create_project(new("  Thesis ")).unwrap();
        assert_eq!(p.name, "Thesis");
        assert!(matches!(
            store.create_project(new("thesis")),
            Err(StoreError::AlreadyExists { .. })
        ));
        store
            .add_project_source("thesis", "/home/a/notes", ProjectSourceKind::Folder)
            .unwrap();
        let again = store
            .add_project_source(&p.id, "/home/a/notes", ProjectSourceKind::Folder)
            .unwrap();
        assert_eq!(again.sources.len(), 1);
        let c = store
            .create_conversation(NewConversation {
                title: "t".into(),
                ..NewConversation::default()
            })
            .unwrap();
        store
            .set_conversation_project(&c.id, Some("Thesis"))
            .unwrap();
        drop(store);
        let store = Store::open(dir.path()).unwrap();
        let shown = store.project("THESIS").unwrap().unwrap();
        assert_eq!(shown.conversations, 1);
        assert_eq!(shown.sources[0].path, "/home/a/notes");
        assert_eq!(
            store.conversation_project(&c.id).unwrap().map(|p| p.id),
            Some(p.id.clone())
        );
        assert_eq!(
            store.conversation(&c.id).unwrap().unwrap().project_id,
            Some(p.id.clone())
        );
        store.delete_project("Thesis").unwrap();
        assert!(store.projects().unwrap().is_empty());
        let kept = store.conversation(&c.id).unwrap().unwrap();
        assert_eq!(kept.project_id, None);
        assert!(matches!(
            store.remove_project_source(&p.id, "/x"),
            Err(StoreError::NotFound { .. })
        ));
    }

    #[test]
    fn bad_names_are_refused_with_the_reason() {
        let dir = tempfile::tempdir().unwrap();
        let store = Store::open(dir.path()).unwrap();
        for bad in ["", "   ", "a\u{7}b", &"x".repeat(MAX_NAME_CHARS + 1)] {
            let err = store.create_project(new(bad)).unwrap_err();
            assert!(err.to_string().contains("name"), "{err}");
        }
        assert!(store.projects().unwrap().is_empty());
    }
}
