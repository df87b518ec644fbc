//! Projects and their knowledge: `/v1/projects` (list, create), `/v1/projects/{project}`
//! (show with the index's state, edit, remove), `/v1/projects/{project}/knowledge` (its state;
//! add a folder or file, whose scan is queued; remove one with `?path=`),
//! `/v1/projects/{project}/knowledge/search?q=…&limit=…`, `/v1/knowledge` (the whole index),
//! `/v1/knowledge/pause` and `/resume`, and `PUT /v1/conversations/{id}/project`. A project is
//! named by its id or its name.

use std::path::Path;

use axum::body::Bytes;
use axum::extract::rejection::BytesRejection;
use axum::extract::{Path as UrlPath, Query, State};
use axum::http::StatusCode;
use axum::routing::{get, post, put};
use axum::{Json, Router};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use tessera_app::projects::{KnowledgeStatus, NewProject, Project, ProjectPatch};
use tessera_app::views::projects::{
    ConversationProjectBody, KnowledgeAdded, KnowledgeSearch, KnowledgeSourceBody, NewProjectBody,
    ProjectDetail, ProjectEdit, ProjectList,
};
use tessera_app::{App, CoreError};
use tessera_protocol::error_codes::ErrorCode;

use super::{bad_request, json_body};
use crate::api::ApiError;

pub(super) fn routes() -> Router<crate::api::ApiState> {
    Router::new()
        .route("/projects", get(list).post(create))
        .route("/projects/{project}", get(show).patch(edit).delete(remove))
        .route(
            "/projects/{project}/knowledge",
            get(project_status).post(add_source).delete(remove_source),
        )
        .route("/projects/{project}/knowledge/search", get(search))
        .route("/knowledge", get(all_status))
        .route("/knowledge/pause", post(pause))
        .route("/knowledge/resume", post(resume))
        .route("/conversations/{id}/project", put(move_conversation))
}

/// A body of type `T`; a field it does not take is named in the 400.
fn typed<T: DeserializeOwned>(body: Result<Bytes, BytesRejection>) -> Result<T, ApiError> {
    serde_json::from_value(json_body(body)?)
        .map_err(|err| bad_request(format!("the body is not what this route takes: {err}")))
}

/// Runs blocking work of the core (the index is SQLite and a file walk) off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, CoreError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|e| ApiError::new(ErrorCode::Internal, format!("the work stopped: {e}")))?
        .map_err(ApiError::from)
}

async fn list(State(app): State<App>) -> Result<Json<ProjectList>, ApiError> {
    let projects = blocking(move || app.projects()).await?;
    Ok(Json(ProjectList { projects }))
}

async fn create(
    State(app): State<App>,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<Project>), ApiError> {
    let body: NewProjectBody = typed(body)?;
    let project = blocking(move || {
        app.create_project(NewProject {
            name: body.name,
            instructions: body.instructions.unwrap_or_default(),
            model: body.model,
        })
    })
    .await?;
    Ok((StatusCode::CREATED, Json(project)))
}

async fn show(
    State(app): State<App>,
    UrlPath(project): UrlPath<String>,
) -> Result<Json<ProjectDetail>, ApiError> {
    let detail = blocking(move || {
        let project = app.project(&project)?;
        let knowledge = app.knowledge_status(Some(&project.id))?;
        Ok(ProjectDetail { project, knowledge })
    })
    .await?;
    Ok(Json(detail))
}

async fn edit(
    State(app): State<App>,
    UrlPath(project): UrlPath<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<Project>, ApiError> {
    let body: ProjectEdit = typed(body)?;
    let project = blocking(move || {
        app.update_project(
            &project,
            ProjectPatch {
                name: body.name,
                instructions: body.instructions,
                model: body.model,
            },
        )
    })
    .await?;
    Ok(Json(project))
}

async fn remove(
    State(app): State<App>,
    UrlPath(project): UrlPath<String>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let removed = blocking(move || app.delete_project(&project)).await?;
    Ok(Json(serde_json::json!({ "deleted": removed })))
}

async fn project_status(
    State(app): State<App>,
    UrlPath(project): UrlPath<String>,
) -> Result<Json<KnowledgeStatus>, ApiError> {
    let status = blocking(move || app.knowledge_status(Some(&project))).await?;
    Ok(Json(status))
}

async fn all_status(State(app): State<App>) -> Result<Json<KnowledgeStatus>, ApiError> {
    let status = blocking(move || app.knowledge_status(None)).await?;
    Ok(Json(status))
}

async fn add_source(
    State(app): State<App>,
    UrlPath(project): UrlPath<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<(StatusCode, Json<KnowledgeAdded>), ApiError> {
    let body: KnowledgeSourceBody = typed(body)?;
    let (project, path) =
        blocking(move || app.add_knowledge(&project, Path::new(&body.path))).await?;
    Ok((
        StatusCode::ACCEPTED,
        Json(KnowledgeAdded {
            project,
            path: path.to_string_lossy().into_owned(),
            queued: true,
        }),
    ))
}

#[derive(Deserialize)]
struct PathQuery {
    path: Option<String>,
}

async fn remove_source(
    State(app): State<App>,
    UrlPath(project): UrlPath<String>,
    Query(query): Query<PathQuery>,
) -> Result<Json<Project>, ApiError> {
    let path = query
        .path
        .ok_or_else(|| bad_request("name the folder or file to remove: ?path=/absolute/path"))?;
    let project = blocking(move || app.remove_knowledge(&project, Path::new(&path))).await?;
    Ok(Json(project))
}

#[derive(Deserialize)]
struct SearchQuery {
    q: Option<String>,
    limit: Option<usize>,
}

async fn search(
    State(app): State<App>,
    UrlPath(project): UrlPath<String>,
    Query(query): Query<SearchQuery>,
) -> Result<Json<KnowledgeSearch>, ApiError> {
    let q = query
        .q
        .filter(|q| !q.trim().is_empty())
        .ok_or_else(|| bad_request("say what to look for: ?q=words"))?;
    let limit = query
        .limit
        .unwrap_or(10)
        .clamp(1, tessera_app::projects::MAX_HITS);
    let found = blocking(move || {
        let (project, hits) = app.search_knowledge(&project, &q, limit)?;
        let retrieval = app.knowledge_status(Some(&project.id))?.retrieval;
        Ok(KnowledgeSearch {
            project: project.name,
            query: q,
            hits,
            retrieval,
        })
    })
    .await?;
    Ok(Json(found))
}

async fn pause(State(app): State<App>) -> Result<Json<KnowledgeStatus>, ApiError> {
    let status = blocking(move || {
        app.pause_knowledge()?;
        app.knowledge_status(None)
    })
    .await?;
    Ok(Json(status))
}

async fn resume(State(app): State<App>) -> Result<Json<KnowledgeStatus>, ApiError> {
    let status = blocking(move || {
        app.resume_knowledge()?;
        app.knowledge_status(None)
    })
    .await?;
    Ok(Json(status))
}

async fn move_conversation(
    State(app): State<App>,
    UrlPath(id): UrlPath<String>,
    body: Result<Bytes, BytesRejection>,
) -> Result<Json<ConversationProjectBody>, ApiError> {
    let body: ConversationProjectBody = typed(body)?;
    let project = body.project.clone();
    let moved = blocking(move || {
        app.move_conversation(&id, project.as_deref())?;
        Ok(project
            .map(|p| app.project(&p))
            .transpose()?
            .map(|p| p.name))
    })
    .await?;
    Ok(Json(ConversationProjectBody { project: moved }))
}
