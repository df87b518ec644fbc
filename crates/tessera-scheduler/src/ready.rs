//! The incremental ready set: which nodes may start now. Each finished node releases its
//! successors in O(out-degree); picking the next node is O(log n). Nodes run in lanes, each
//! with its own limit, under a global limit.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use crate::graph::Graph;

/// Which ready node starts first when the limits leave a choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Priority {
    /// The model's order (SEQUENTIAL, CLIENT_SERVER_PARALLEL).
    ModelOrder,
    /// The longest estimated remaining path first, then the model's order; shortens the
    /// makespan when the concurrency limit binds.
    CriticalPath,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Blocked,
    Ready,
    Running,
    Done,
}

/// Where each node stands.
#[derive(Clone, Debug)]
pub struct ReadySet {
    remaining: Vec<u32>,
    state: Vec<State>,
    lane_of: Vec<usize>,
    lane_limit: Vec<usize>,
    lane_running: Vec<usize>,
    heaps: Vec<BinaryHeap<(u64, Reverse<usize>)>>,
    key: Vec<u64>,
    global_limit: usize,
    running: usize,
    done: usize,
}

impl ReadySet {
    /// `lane_of[i]` is node i's lane, `lane_limits[l]` lane l's limit (0 counts as 1);
    /// `global_limit` bounds all lanes together (0 counts as 1).
    pub fn new(
        graph: &Graph,
        lane_of: Vec<usize>,
        lane_limits: Vec<usize>,
        global_limit: usize,
        priority: Priority,
    ) -> Self {
        let n = graph.len();
        let lanes = lane_limits.len().max(1);
        let lane_of: Vec<usize> = (0..n)
            .map(|i| lane_of.get(i).copied().unwrap_or(0).min(lanes - 1))
            .collect();
        let mut lane_limit: Vec<usize> = lane_limits.iter().map(|&l| l.max(1)).collect();
        if lane_limit.is_empty() {
            lane_limit.push(usize::MAX);
        }
        let key = (0..n)
            .map(|i| match priority {
                Priority::ModelOrder => 0,
                Priority::CriticalPath => graph.bottom_level(i),
            })
            .collect();
        let mut set = Self {
            remaining: (0..n).map(|i| graph.preds(i).len() as u32).collect(),
            state: vec![State::Blocked; n],
            lane_of,
            lane_limit,
            lane_running: vec![0; lanes],
            heaps: vec![BinaryHeap::new(); lanes],
            key,
            global_limit: global_limit.max(1),
            running: 0,
            done: 0,
        };
        for i in 0..n {
            if set.remaining[i] == 0 {
                set.make_ready(i);
            }
        }
        set
    }

    fn make_ready(&mut self, i: usize) {
        self.state[i] = State::Ready;
        self.heaps[self.lane_of[i]].push((self.key[i], Reverse(i)));
    }

    /// A node that may start now, marked running; `None` when the limits are reached or
    /// nothing is ready.
    pub fn pop_startable(&mut self) -> Option<usize> {
        if self.running >= self.global_limit {
            return None;
        }
        let mut best: Option<(usize, (u64, Reverse<usize>))> = None;
        for (lane, heap) in self.heaps.iter().enumerate() {
            if self.lane_running[lane] >= self.lane_limit[lane] {
                continue;
            }
            if let Some(&top) = heap.peek() {
                if best.is_none_or(|(_, b)| top > b) {
                    best = Some((lane, top));
                }
            }
        }
        let (lane, _) = best?;
        let (_, Reverse(i)) = self.heaps[lane].pop()?;
        self.state[i] = State::Running;
        self.lane_running[lane] += 1;
        self.running += 1;
        Some(i)
    }

    /// Node `i` (returned by [`ReadySet::pop_startable`]) is done: its successors may become ready.
    pub fn finish(&mut self, graph: &Graph, i: usize) {
        if self.state[i] != State::Running {
            return;
        }
        self.state[i] = State::Done;
        self.running -= 1;
        self.lane_running[self.lane_of[i]] -= 1;
        self.done += 1;
        for &s in graph.succs(i) {
            self.remaining[s] -= 1;
            if self.remaining[s] == 0 && self.state[s] == State::Blocked {
                self.make_ready(s);
            }
        }
    }

    /// Every node that has not started (ready or waiting), now marked done without running
    /// (used when the set is cancelled or times out).
    pub fn drain_unstarted(&mut self) -> Vec<usize> {
        let mut out = Vec::new();
        for i in 0..self.state.len() {
            if matches!(self.state[i], State::Blocked | State::Ready) {
                self.state[i] = State::Done;
                self.done += 1;
                out.push(i);
            }
        }
        for heap in &mut self.heaps {
            heap.clear();
        }
        out
    }

    pub fn running(&self) -> usize {
        self.running
    }

    /// Whether every node is done.
    pub fn is_finished(&self) -> bool {
        self.done == self.state.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::{Access, GraphError, NodeSpec};

    fn node(id: &str, est: u64, after: &[&str]) -> NodeSpec {
        NodeSpec {
            id: id.into(),
            estimate_ms: est,
            after: after.iter().map(|s| s.to_string()).collect(),
            ..NodeSpec::default()
        }
    }

    fn drain(set: &mut ReadySet) -> Vec<usize> {
        std::iter::from_fn(|| set.pop_startable()).collect()
    }

    #[test]
    fn everything_free_starts_at_once_up_to_the_limit() -> Result<(), GraphError> {
        let g = Graph::build((0..5).map(|i| node(&format!("n{i}"), 1, &[])).collect())?;
        let mut set = ReadySet::new(&g, vec![], vec![usize::MAX], 3, Priority::ModelOrder);
        assert_eq!(drain(&mut set), vec![0, 1, 2]);
        set.finish(&g, 1);
        assert_eq!(drain(&mut set), vec![3]);
        set.finish(&g, 0);
        set.finish(&g, 2);
        assert_eq!(drain(&mut set), vec![4]);
        set.finish(&g, 3);
        set.finish(&g, 4);
        assert!(set.is_finished());
        Ok(())
    }

    #[test]
    fn a_node_is_released_when_its_last_predecessor_finishes() -> Result<(), GraphError> {
        let g = Graph::build(vec![
            node("a", 1, &[]),
            node("b", 1, &[]),
            node("c", 1, &["a", "b"]),
        ])?;
        let mut set = ReadySet::new(&g, vec![], vec![10], 10, Priority::ModelOrder);
        assert_eq!(drain(&mut set), vec![0, 1]);
        set.finish(&g, 0);
        assert_eq!(drain(&mut set), Vec::<usize>::new());
        set.finish(&g, 1);
        assert_eq!(drain(&mut set), vec![2]);
        Ok(())
    }

    #[test]
    fn critical_path_priority_starts_the_longest_chain_first() -> Result<(), GraphError> {
        let g = Graph::build(vec![
            node("short", 1, &[]),
            node("long", 10, &[]),
            node("tail", 50, &["long"]),
        ])?;
        let mut set = ReadySet::new(&g, vec![], vec![10], 1, Priority::CriticalPath);
        assert_eq!(set.pop_startable(), Some(1));
        let mut set = ReadySet::new(&g, vec![], vec![10], 1, Priority::ModelOrder);
        assert_eq!(set.pop_startable(), Some(0));
        Ok(())
    }

    #[test]
    fn lanes_have_their_own_limits() -> Result<(), GraphError> {
        let mut nodes: Vec<NodeSpec> = (0..4).map(|i| node(&format!("n{i}"), 1, &[])).collect();
        nodes[0].access = Access::safe();
        let g = Graph::build(nodes)?;
        // Lanes: n0, n2 in lane 0; n1, n3 in lane 1; one at a time in each.
        let mut set = ReadySet::new(&g, vec![0, 1, 0, 1], vec![1, 1], 10, Priority::ModelOrder);
        assert_eq!(drain(&mut set), vec![0, 1]);
        set.finish(&g, 1);
        assert_eq!(drain(&mut set), vec![3]);
        set.finish(&g, 0);
        assert_eq!(drain(&mut set), vec![2]);
        Ok(())
    }

    #[test]
    fn unstarted_nodes_can_be_drained() -> Result<(), GraphError> {
        let g = Graph::build(vec![
            node("a", 1, &[]),
            node("b", 1, &["a"]),
            node("c", 1, &[]),
        ])?;
        let mut set = ReadySet::new(&g, vec![], vec![1], 1, Priority::ModelOrder);
        assert_eq!(set.pop_startable(), Some(0));
        assert_eq!(set.drain_unstarted(), vec![1, 2]);
        set.finish(&g, 0);
        assert!(set.is_finished());
        Ok(())
    }
}
