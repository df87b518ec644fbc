//! The precedence graph of a set of calls or instructions.
//!
//! Edges, always from the node that must finish first:
//! - `after`: declared order (`requiredAfter`, an instruction's `dependencies`);
//! - `data`: a `${results.<id>…}` / `${dependencies.<id>…}` placeholder or a condition that
//!   reads another node;
//! - `conflict`: seed 001 §4 — a side-effecting node (`isConcurrencySafe` false) drains
//!   every node before it in the model's order and runs alone: every node after it waits for
//!   it, whatever resources either declares. Safe nodes never conflict with each other;
//! - `phase`: FRONTEND_FIRST / BACKEND_FIRST put every node of one runtime before the other's.
//!
//! Conflict edges link each side-effecting node to the safe nodes since the one before it and
//! to those until the next, so their number stays linear; transitively implied edges are not
//! repeated.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;

/// What a node reads and writes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Access {
    /// Whether running it changes something (seed 001 `isConcurrencySafe == false`): then it
    /// runs alone.
    pub side_effects: bool,
    /// Declared resources: they do not order anything, they name what a conflict edge is
    /// about in the graph view.
    pub reads: Vec<String>,
    pub writes: Vec<String>,
}

impl Access {
    /// A concurrency-safe node with no declared resources.
    pub fn safe() -> Self {
        Self::default()
    }

    /// A side-effecting node that declares nothing.
    pub fn exclusive() -> Self {
        Self {
            side_effects: true,
            ..Self::default()
        }
    }

    /// Whether this node conflicts with every other: any side-effecting node (seed 001 §4:
    /// "先执行当前并发批次，再单独执行非 safe 工具"), resources declared or not.
    pub fn is_barrier(&self) -> bool {
        self.side_effects
    }

    /// A resource one of the two writes and the other touches, to label their conflict.
    fn shared_with<'a>(&'a self, other: &Access) -> Option<&'a str> {
        let touches = |x: &Access, r: &String| x.reads.contains(r) || x.writes.contains(r);
        self.writes
            .iter()
            .find(|r| touches(other, r))
            .or_else(|| {
                self.reads
                    .iter()
                    .chain(&self.writes)
                    .find(|r| other.writes.contains(r))
            })
            .map(String::as_str)
    }
}

/// One node as the planner describes it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NodeSpec {
    /// `callId` or `instructionId`.
    pub id: String,
    /// The tool or action, for display.
    pub label: String,
    /// Ids this node is declared to run after.
    pub after: Vec<String>,
    /// Ids whose results this node reads.
    pub refs: Vec<String>,
    pub access: Access,
    /// 0: no phase; otherwise every node of a phase waits for every node of the phase before.
    pub phase: u8,
    /// Expected duration, for priorities and the critical path.
    pub estimate_ms: u64,
    /// Extra fields shown in the graph view (`runtime`, `kind`…).
    pub display: serde_json::Map<String, Value>,
}

/// Why an edge exists.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EdgeKind {
    After,
    Data,
    Conflict,
    Phase,
}

/// `from` finishes before `to` starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    pub from: usize,
    pub to: usize,
    pub kind: EdgeKind,
    /// For a conflict on a declared resource, the resource.
    pub resource: Option<String>,
}

/// A set refused before anything runs.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GraphError {
    #[error("`{id}` is used by more than one call")]
    DuplicateId { id: String },
    #[error("{}", unknown_message(.missing))]
    UnknownReference {
        /// (the node, the id it names that does not exist)
        missing: Vec<(String, String)>,
    },
    #[error("dependency cycle: {}", .ids.join(" -> "))]
    Cycle {
        /// The cycle, its first id repeated at the end.
        ids: Vec<String>,
    },
}

fn unknown_message(missing: &[(String, String)]) -> String {
    let parts: Vec<String> = missing
        .iter()
        .map(|(from, to)| format!("`{from}` depends on `{to}`, which does not exist"))
        .collect();
    parts.join("; ")
}

/// The graph, checked acyclic.
#[derive(Clone, Debug)]
pub struct Graph {
    nodes: Vec<NodeSpec>,
    index: HashMap<String, usize>,
    preds: Vec<Vec<usize>>,
    succs: Vec<Vec<usize>>,
    /// Predecessors by `after` or `data` edges: their failure concerns the node.
    hard_preds: Vec<Vec<usize>>,
    edges: Vec<Edge>,
    bottom_level: Vec<u64>,
}

struct Builder {
    n: usize,
    seen: HashMap<(usize, usize), usize>,
    edges: Vec<Edge>,
}

impl Builder {
    fn add(&mut self, from: usize, to: usize, kind: EdgeKind, resource: Option<&str>) {
        if from == to || self.seen.contains_key(&(from, to)) {
            return;
        }
        self.seen.insert((from, to), self.edges.len());
        self.edges.push(Edge {
            from,
            to,
            kind,
            resource: resource.map(str::to_owned),
        });
    }
}

impl Graph {
    /// Builds and checks the graph: duplicate ids, references to ids that do not exist and
    /// cycles are refused, naming the nodes involved.
    pub fn build(nodes: Vec<NodeSpec>) -> Result<Graph, GraphError> {
        let n = nodes.len();
        let mut index = HashMap::with_capacity(n);
        for (i, node) in nodes.iter().enumerate() {
            if index.insert(node.id.clone(), i).is_some() {
                return Err(GraphError::DuplicateId {
                    id: node.id.clone(),
                });
            }
        }
        let mut b = Builder {
            n,
            seen: HashMap::with_capacity(n * 2),
            edges: Vec::with_capacity(n * 2),
        };
        let mut missing = Vec::new();
        let mut self_loops = Vec::new();
        for (kind, pick) in [
            (
                EdgeKind::After,
                (|n: &NodeSpec| &n.after) as fn(&NodeSpec) -> &Vec<String>,
            ),
            (EdgeKind::Data, |n: &NodeSpec| &n.refs),
        ] {
            for (i, node) in nodes.iter().enumerate() {
                for dep in pick(node) {
                    match index.get(dep) {
                        Some(&j) if j == i => self_loops.push(i),
                        Some(&j) => b.add(j, i, kind, None),
                        None => {
                            let pair = (node.id.clone(), dep.clone());
                            if !missing.contains(&pair) {
                                missing.push(pair);
                            }
                        }
                    }
                }
            }
        }
        if !missing.is_empty() {
            return Err(GraphError::UnknownReference { missing });
        }
        if let Some(&i) = self_loops.first() {
            return Err(GraphError::Cycle {
                ids: vec![nodes[i].id.clone(), nodes[i].id.clone()],
            });
        }
        add_conflicts(&nodes, &mut b);
        add_phases(&nodes, &mut b);
        let edges = b.edges;
        let mut preds = vec![Vec::new(); b.n];
        let mut succs = vec![Vec::new(); b.n];
        let mut hard_preds = vec![Vec::new(); b.n];
        for e in &edges {
            preds[e.to].push(e.from);
            succs[e.from].push(e.to);
            if matches!(e.kind, EdgeKind::After | EdgeKind::Data) {
                hard_preds[e.to].push(e.from);
            }
        }
        let order = topological_order(&preds, &succs).map_err(|stuck| GraphError::Cycle {
            ids: find_cycle(&preds, &stuck)
                .into_iter()
                .map(|i| nodes[i].id.clone())
                .collect(),
        })?;
        let mut bottom_level = vec![0u64; n];
        for &v in order.iter().rev() {
            let below = succs[v].iter().map(|&s| bottom_level[s]).max().unwrap_or(0);
            bottom_level[v] = nodes[v].estimate_ms + below;
        }
        Ok(Graph {
            nodes,
            index,
            preds,
            succs,
            hard_preds,
            edges,
            bottom_level,
        })
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub fn node(&self, i: usize) -> &NodeSpec {
        &self.nodes[i]
    }

    pub fn id(&self, i: usize) -> &str {
        &self.nodes[i].id
    }

    pub fn index_of(&self, id: &str) -> Option<usize> {
        self.index.get(id).copied()
    }

    /// Every node that must finish before `i` starts (direct edges only).
    pub fn preds(&self, i: usize) -> &[usize] {
        &self.preds[i]
    }

    pub fn succs(&self, i: usize) -> &[usize] {
        &self.succs[i]
    }

    /// Predecessors by declared order or data: a failure there concerns `i`.
    pub fn hard_preds(&self, i: usize) -> &[usize] {
        &self.hard_preds[i]
    }

    pub fn edges(&self) -> &[Edge] {
        &self.edges
    }

    /// The longest estimated path from `i` to the end, `i` included.
    pub fn bottom_level(&self, i: usize) -> u64 {
        self.bottom_level[i]
    }

    /// The longest estimated path through the graph.
    pub fn critical_path_ms(&self) -> u64 {
        self.bottom_level.iter().copied().max().unwrap_or(0)
    }

    /// The sum of the estimates.
    pub fn total_work_ms(&self) -> u64 {
        self.nodes.iter().map(|n| n.estimate_ms).sum()
    }

    /// The graph as data a UI can draw (seed 000 §6.4), for `workflow/graph`: `nodes`
    /// `{id, label, state, …display}` in the set's order and `edges`
    /// `{from, to, kind, resource?}`.
    pub fn view(&self, state_of: &dyn Fn(usize) -> String) -> (Vec<Value>, Vec<Value>) {
        let nodes = self
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let mut o = serde_json::Map::new();
                o.insert("id".into(), Value::String(n.id.clone()));
                o.insert("label".into(), Value::String(n.label.clone()));
                o.insert("state".into(), Value::String(state_of(i)));
                for (k, v) in &n.display {
                    o.insert(k.clone(), v.clone());
                }
                Value::Object(o)
            })
            .collect();
        let edges = self
            .edges
            .iter()
            .map(|e| {
                let mut o = serde_json::Map::new();
                o.insert("from".into(), Value::String(self.nodes[e.from].id.clone()));
                o.insert("to".into(), Value::String(self.nodes[e.to].id.clone()));
                o.insert(
                    "kind".into(),
                    serde_json::to_value(e.kind).unwrap_or(Value::Null),
                );
                if let Some(r) = &e.resource {
                    o.insert("resource".into(), Value::String(r.clone()));
                }
                Value::Object(o)
            })
            .collect();
        (nodes, edges)
    }
}

/// Conflict edges in model order: a side-effecting node waits for everything since the
/// previous one (or for the previous one itself when nothing came between), and everything
/// after it waits for it. An edge names a resource when the two nodes share one.
fn add_conflicts(nodes: &[NodeSpec], b: &mut Builder) {
    let mut last_barrier: Option<usize> = None;
    let mut since_barrier: Vec<usize> = Vec::new();
    for (i, node) in nodes.iter().enumerate() {
        let a = &node.access;
        let label = |j: usize| {
            nodes[j]
                .access
                .shared_with(a)
                .or_else(|| a.shared_with(&nodes[j].access))
        };
        if a.is_barrier() {
            for &j in &since_barrier {
                b.add(j, i, EdgeKind::Conflict, label(j));
            }
            if since_barrier.is_empty() {
                if let Some(p) = last_barrier {
                    b.add(p, i, EdgeKind::Conflict, label(p));
                }
            }
            last_barrier = Some(i);
            since_barrier.clear();
            continue;
        }
        if let Some(p) = last_barrier {
            b.add(p, i, EdgeKind::Conflict, label(p));
        }
        since_barrier.push(i);
    }
}

fn add_phases(nodes: &[NodeSpec], b: &mut Builder) {
    let mut phases: Vec<u8> = nodes.iter().map(|n| n.phase).filter(|&p| p > 0).collect();
    phases.sort_unstable();
    phases.dedup();
    for pair in phases.windows(2) {
        let (first, second) = (pair[0], pair[1]);
        let before: Vec<usize> = (0..nodes.len())
            .filter(|&i| nodes[i].phase == first)
            .collect();
        for (i, node) in nodes.iter().enumerate() {
            if node.phase == second {
                for &j in &before {
                    b.add(j, i, EdgeKind::Phase, None);
                }
            }
        }
    }
}

/// Kahn's algorithm; on a cycle, the nodes that never became free.
fn topological_order(preds: &[Vec<usize>], succs: &[Vec<usize>]) -> Result<Vec<usize>, Vec<usize>> {
    let n = preds.len();
    let mut indegree: Vec<usize> = preds.iter().map(Vec::len).collect();
    let mut order: Vec<usize> = (0..n).filter(|&i| indegree[i] == 0).collect();
    let mut head = 0;
    while head < order.len() {
        let v = order[head];
        head += 1;
        for &s in &succs[v] {
            indegree[s] -= 1;
            if indegree[s] == 0 {
                order.push(s);
            }
        }
    }
    if order.len() == n {
        Ok(order)
    } else {
        Err((0..n).filter(|&i| indegree[i] > 0).collect())
    }
}

/// A cycle among `stuck` nodes (each has a stuck predecessor), in execution order, its first
/// node repeated at the end.
fn find_cycle(preds: &[Vec<usize>], stuck: &[usize]) -> Vec<usize> {
    let mut in_stuck = vec![false; preds.len()];
    for &s in stuck {
        in_stuck[s] = true;
    }
    let Some(&start) = stuck.first() else {
        return Vec::new();
    };
    let mut seen_at: HashMap<usize, usize> = HashMap::new();
    let mut walk = vec![start];
    let mut v = start;
    loop {
        seen_at.insert(v, walk.len() - 1);
        let Some(&p) = preds[v].iter().find(|&&p| in_stuck[p]) else {
            return walk;
        };
        if let Some(&at) = seen_at.get(&p) {
            // walk[k + 1] runs before walk[k], and walk[at] (= p) runs before walk[last]:
            // in execution order the cycle is p, walk[last], …, walk[at + 1], p.
            let mut cycle = vec![p];
            cycle.extend(walk[at + 1..].iter().rev().copied());
            cycle.push(p);
            return cycle;
        }
        walk.push(p);
        v = p;
    }
}

#[cfg(test)]
mod tests;
