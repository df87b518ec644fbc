//! The vector half of retrieval: chunks embedded by the person's chosen model, kept as unit
//! vectors quantised to one signed byte per dimension (a quarter of f32, cosine within about
//! 1 %), and searched by a flat scan of the project's vectors held in memory. At a person's
//! scale (10⁵ chunks of 1,024 dimensions: 100 MB, one pass a query) a flat scan needs no index
//! to build or keep in step, and is exact; see the bench for its time.
//!
//! Each vector records the model that made it: a changed model re-embeds, a search never mixes
//! models. Hybrid results fuse the lexical and vector rankings by reciprocal rank (RRF, k = 60).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use rusqlite::{params, Connection};

use crate::error::Result;

/// What makes vectors: a provider's `/v1/embeddings`, or a model on this machine.
pub trait Embedder: Send + Sync {
    /// The model's name, recorded with each vector.
    fn model(&self) -> String;
    /// One vector per text, in order. Called from the indexer's thread and from searches.
    fn embed(&self, texts: &[String]) -> std::result::Result<Vec<Vec<f32>>, String>;
}

/// Texts embedded per call.
pub const BATCH: usize = 32;
/// Longest text embedded, in characters (the chunk's start carries its meaning).
const MAX_EMBED_CHARS: usize = 2_000;
/// RRF's constant.
const RRF_K: f64 = 60.0;

/// `v` as a unit vector in signed bytes.
pub fn quantise(v: &[f32]) -> Vec<i8> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    if norm == 0.0 || !norm.is_finite() {
        return vec![0; v.len()];
    }
    v.iter()
        .map(|x| {
            let q = (x / norm * 127.0).round();
            q.clamp(-127.0, 127.0) as i8
        })
        .collect()
}

/// The dot product, in lanes of 16 the compiler turns into SIMD multiply-adds (a scalar fold
/// took twice as long over 10⁵ vectors).
fn dot(a: &[i8], b: &[i8]) -> i32 {
    let mut lanes = [0i32; 16];
    let (a16, a_rest) = a.split_at(a.len() - a.len() % 16);
    let (b16, b_rest) = b.split_at(b.len().min(a16.len()));
    for (x, y) in a16.chunks_exact(16).zip(b16.chunks_exact(16)) {
        for i in 0..16 {
            lanes[i] += i32::from(x[i]) * i32::from(y[i]);
        }
    }
    let tail: i32 = a_rest
        .iter()
        .zip(b_rest)
        .map(|(x, y)| i32::from(*x) * i32::from(*y))
        .sum();
    lanes.iter().sum::<i32>() + tail
}

/// The text a chunk is embedded as.
pub fn embed_text(heading: Option<&str>, text: &str) -> String {
    let mut out = String::new();
    if let Some(h) = heading {
        out.push_str(h);
        out.push('\n');
    }
    out.extend(text.chars().take(MAX_EMBED_CHARS));
    out
}

/// Embeds up to `limit` chunks with no vector of `embedder`'s model, from the chunk after
/// `after` on (a cursor the caller keeps across calls, so a large index is walked once, not
/// once per batch); how many were.
pub fn embed_pending(
    conn: &mut Connection,
    embedder: &dyn Embedder,
    limit: usize,
    after: &mut i64,
) -> std::result::Result<usize, String> {
    let model = embedder.model();
    let mut done = 0;
    while done < limit {
        let batch: Vec<(i64, Option<String>, String)> = conn
            .prepare_cached(
                "SELECT c.id, c.heading, c.text FROM chunks c
                 LEFT JOIN vectors v ON v.chunk_id = c.id AND v.model = ?1
                 WHERE c.id > ?3 AND v.chunk_id IS NULL ORDER BY c.id LIMIT ?2",
            )
            .and_then(|mut s| {
                s.query_map(params![model, BATCH as i64, *after], |r| {
                    Ok((r.get(0)?, r.get(1)?, r.get(2)?))
                })?
                .collect()
            })
            .map_err(|e| e.to_string())?;
        let Some((last, _, _)) = batch.last() else {
            break;
        };
        *after = *last;
        let texts: Vec<String> = batch
            .iter()
            .map(|(_, h, t)| embed_text(h.as_deref(), t))
            .collect();
        let vectors = embedder.embed(&texts)?;
        if vectors.len() != batch.len() {
            return Err(format!(
                "{} vectors for {} texts",
                vectors.len(),
                batch.len()
            ));
        }
        let tx = conn.transaction().map_err(|e| e.to_string())?;
        for ((id, _, _), vector) in batch.iter().zip(&vectors) {
            let q = quantise(vector);
            let bytes: Vec<u8> = q.iter().map(|b| b.to_ne_bytes()[0]).collect();
            tx.prepare_cached(
                "INSERT INTO vectors (chunk_id, model, dims, data) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (chunk_id) DO UPDATE SET model = excluded.model,
                     dims = excluded.dims, data = excluded.data",
            )
            .and_then(|mut s| s.execute(params![id, model, q.len() as i64, bytes]))
            .map_err(|e| e.to_string())?;
        }
        tx.commit().map_err(|e| e.to_string())?;
        done += batch.len();
    }
    Ok(done)
}

/// One project's vectors of one model, laid out for a scan.
pub struct Loaded {
    generation: u64,
    dims: usize,
    ids: Vec<i64>,
    data: Vec<i8>,
}

/// The vectors searches scan, loaded once per project and model and reloaded after the index
/// changed (its generation moved).
#[derive(Default, Clone)]
pub struct VectorCache {
    loaded: Arc<Mutex<LoadedByProjectAndModel>>,
}

type LoadedByProjectAndModel = HashMap<(String, String), Arc<Loaded>>;

impl VectorCache {
    /// The project's vectors of `model`, loaded (again when the index changed).
    pub fn get(
        &self,
        conn: &Connection,
        project_id: &str,
        model: &str,
        generation: u64,
    ) -> Result<Arc<Loaded>> {
        let key = (project_id.to_owned(), model.to_owned());
        if let Some(hit) = self
            .loaded
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&key)
            .filter(|l| l.generation == generation)
        {
            return Ok(hit.clone());
        }
        let mut stmt = conn.prepare_cached(
            "SELECT v.chunk_id, v.dims, v.data FROM vectors v
             JOIN chunks c ON c.id = v.chunk_id JOIN files f ON f.id = c.file_id
             WHERE f.project_id = ?1 AND v.model = ?2",
        )?;
        let mut loaded = Loaded {
            generation,
            dims: 0,
            ids: Vec::new(),
            data: Vec::new(),
        };
        let mut rows = stmt.query(params![project_id, model])?;
        while let Some(row) = rows.next()? {
            let dims = usize::try_from(row.get::<_, i64>(1)?).unwrap_or(0);
            let bytes: Vec<u8> = row.get(2)?;
            if loaded.dims == 0 {
                loaded.dims = dims;
            }
            if dims != loaded.dims || bytes.len() != dims {
                continue;
            }
            loaded.ids.push(row.get(0)?);
            loaded
                .data
                .extend(bytes.iter().map(|b| i8::from_ne_bytes([*b])));
        }
        let loaded = Arc::new(loaded);
        self.loaded
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(key, loaded.clone());
        Ok(loaded)
    }
}

/// The `limit` chunks nearest `query` (already embedded) among `loaded`, best first, with
/// their cosine.
pub fn nearest(loaded: &Loaded, query: &[f32], limit: usize) -> Vec<(i64, f64)> {
    let q = quantise(query);
    if loaded.dims == 0 || q.len() != loaded.dims {
        return Vec::new();
    }
    let mut scored: Vec<(i64, i32)> = loaded
        .ids
        .iter()
        .zip(loaded.data.chunks_exact(loaded.dims))
        .map(|(id, v)| (*id, dot(&q, v)))
        .collect();
    let keep = limit.min(scored.len());
    if keep == 0 {
        return Vec::new();
    }
    scored.select_nth_unstable_by(keep - 1, |a, b| b.1.cmp(&a.1));
    scored.truncate(keep);
    scored.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    scored
        .into_iter()
        .map(|(id, d)| (id, f64::from(d) / (127.0 * 127.0)))
        .collect()
}

/// Fuses rankings (best first each) by reciprocal rank: each id's score is the sum of
/// 1 / (60 + rank) over the rankings it is in.
pub fn fuse(rankings: &[Vec<i64>]) -> Vec<(i64, f64)> {
    let mut scores: HashMap<i64, f64> = HashMap::new();
    for ranking in rankings {
        for (rank, id) in ranking.iter().enumerate() {
            *scores.entry(*id).or_default() += 1.0 / (RRF_K + rank as f64 + 1.0);
        }
    }
    let mut out: Vec<(i64, f64)> = scores.into_iter().collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantised_vectors_keep_their_order_of_likeness() {
        let a = quantise(&[1.0, 0.0, 0.0]);
        let near = quantise(&[0.9, 0.1, 0.0]);
        let far = quantise(&[0.0, 1.0, 0.0]);
        assert!(dot(&a, &near) > dot(&a, &far));
        assert_eq!(quantise(&[0.0, 0.0]), vec![0, 0]);
    }

    #[test]
    fn the_lane_dot_product_is_the_plain_one() {
        for len in [1usize, 15, 16, 17, 64, 1024, 1031] {
            let a: Vec<i8> = (0..len).map(|i| ((i * 37) % 255) as i8).collect();
            let b: Vec<i8> = (0..len).map(|i| ((i * 91 + 7) % 255) as i8).collect();
            let plain: i32 = a
                .iter()
                .zip(&b)
                .map(|(x, y)| i32::from(*x) * i32::from(*y))
                .sum();
            assert_eq!(dot(&a, &b), plain, "{len}");
        }
    }

    #[test]
    fn fusion_rewards_what_both_rankings_hold() {
        let fused = fuse(&[vec![1, 2, 3], vec![3, 4]]);
        assert_eq!(fused[0].0, 3);
        assert_eq!(fused.len(), 4);
    }
}
