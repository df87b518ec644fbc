use super::*;

fn node(id: &str) -> NodeSpec {
    NodeSpec {
        id: id.into(),
        label: id.into(),
        estimate_ms: 10,
        ..NodeSpec::default()
    }
}

fn with(mut n: NodeSpec, f: impl FnOnce(&mut NodeSpec)) -> NodeSpec {
    f(&mut n);
    n
}

fn reads(id: &str, r: &[&str]) -> NodeSpec {
    with(node(id), |n| {
        n.access.reads = r.iter().map(|s| s.to_string()).collect()
    })
}

fn writes(id: &str, w: &[&str]) -> NodeSpec {
    with(node(id), |n| {
        n.access.side_effects = true;
        n.access.writes = w.iter().map(|s| s.to_string()).collect();
    })
}

fn exclusive(id: &str) -> NodeSpec {
    with(node(id), |n| n.access = Access::exclusive())
}

fn pairs(g: &Graph) -> Vec<(String, String, EdgeKind)> {
    g.edges()
        .iter()
        .map(|e| (g.id(e.from).to_owned(), g.id(e.to).to_owned(), e.kind))
        .collect()
}

/// Whether `a` must finish before `b` (transitively).
fn ordered(g: &Graph, a: &str, b: &str) -> bool {
    let (Some(a), Some(b)) = (g.index_of(a), g.index_of(b)) else {
        return false;
    };
    let mut stack = vec![a];
    let mut seen = vec![false; g.len()];
    while let Some(v) = stack.pop() {
        if v == b {
            return true;
        }
        for &s in g.succs(v) {
            if !seen[s] {
                seen[s] = true;
                stack.push(s);
            }
        }
    }
    false
}

#[test]
fn safe_calls_have_no_edges() -> Result<(), GraphError> {
    let g = Graph::build(vec![node("a"), reads("b", &["db"]), node("c")])?;
    assert!(g.edges().is_empty());
    assert_eq!(g.critical_path_ms(), 10);
    assert_eq!(g.total_work_ms(), 30);
    Ok(())
}

#[test]
fn declared_order_and_references_become_edges() -> Result<(), GraphError> {
    let g = Graph::build(vec![
        with(node("b"), |n| n.after = vec!["a".into()]),
        node("a"),
        with(node("c"), |n| n.refs = vec!["b".into(), "a".into()]),
    ])?;
    assert_eq!(
        pairs(&g),
        vec![
            ("a".into(), "b".into(), EdgeKind::After),
            ("b".into(), "c".into(), EdgeKind::Data),
            ("a".into(), "c".into(), EdgeKind::Data),
        ]
    );
    assert_eq!(g.hard_preds(2).len(), 2);
    assert_eq!(g.critical_path_ms(), 30);
    Ok(())
}

/// Seed 001 §4: a side-effecting call drains what came before it and runs alone, even when it
/// declares the resources it writes (it used to overlap calls that touch other resources).
#[test]
fn a_writer_runs_alone_whatever_resources_it_declares() -> Result<(), GraphError> {
    let g = Graph::build(vec![
        reads("r1", &["memory"]),
        reads("other", &["web"]),
        writes("w", &["memory"]),
        reads("r2", &["memory"]),
        node("free"),
        writes("w2", &["memory"]),
    ])?;
    for earlier in ["r1", "other"] {
        assert!(ordered(&g, earlier, "w"), "{earlier} before w");
    }
    for later in ["r2", "free", "w2"] {
        assert!(ordered(&g, "w", later), "w before {later}");
    }
    for earlier in ["r2", "free"] {
        assert!(ordered(&g, earlier, "w2"), "{earlier} before w2");
    }
    // Safe calls between two writers still run together.
    assert!(!ordered(&g, "r1", "other") && !ordered(&g, "other", "r1"));
    assert!(!ordered(&g, "r2", "free") && !ordered(&g, "free", "r2"));
    // An edge names the resource the two share, when they share one.
    let labelled: Vec<_> = g
        .edges()
        .iter()
        .map(|e| (g.id(e.from), g.id(e.to), e.resource.as_deref()))
        .collect();
    assert!(
        labelled.contains(&("r1", "w", Some("memory"))),
        "{labelled:?}"
    );
    assert!(labelled.contains(&("other", "w", None)), "{labelled:?}");
    Ok(())
}

#[test]
fn a_side_effecting_call_without_resources_keeps_the_model_order_across_it(
) -> Result<(), GraphError> {
    // The seed 001 example: [policy, case, save_user_memory, assessment].
    let g = Graph::build(vec![
        node("policy"),
        node("case"),
        exclusive("save"),
        node("assessment"),
        node("more"),
    ])?;
    assert!(ordered(&g, "policy", "save"));
    assert!(ordered(&g, "case", "save"));
    assert!(ordered(&g, "save", "assessment"));
    assert!(ordered(&g, "save", "more"));
    assert!(!ordered(&g, "policy", "case") && !ordered(&g, "case", "policy"));
    assert!(!ordered(&g, "assessment", "more") && !ordered(&g, "more", "assessment"));
    Ok(())
}

#[test]
fn consecutive_barriers_are_chained_and_resources_reset_after_them() -> Result<(), GraphError> {
    let g = Graph::build(vec![
        exclusive("x"),
        exclusive("y"),
        writes("w", &["f"]),
        exclusive("z"),
        reads("r", &["f"]),
    ])?;
    assert!(ordered(&g, "x", "y"));
    assert!(ordered(&g, "y", "w"));
    assert!(ordered(&g, "w", "z"));
    assert!(ordered(&g, "z", "r"));
    Ok(())
}

#[test]
fn a_cycle_is_refused_naming_its_calls() {
    let result = Graph::build(vec![
        with(node("a"), |n| n.after = vec!["c".into()]),
        with(node("b"), |n| n.refs = vec!["a".into()]),
        with(node("c"), |n| n.after = vec!["b".into()]),
        with(node("d"), |n| n.after = vec!["c".into()]),
    ]);
    match result {
        Err(GraphError::Cycle { ids }) => {
            assert_eq!(ids.first(), ids.last());
            let mut inner = ids[..ids.len() - 1].to_vec();
            inner.sort();
            assert_eq!(inner, vec!["a", "b", "c"]);
            // Each step follows an edge: a -> b -> c -> a, rotated.
            let text = GraphError::Cycle { ids: ids.clone() }.to_string();
            assert!(
                ["a -> b -> c -> a", "b -> c -> a -> b", "c -> a -> b -> c"]
                    .iter()
                    .any(|t| text.ends_with(t)),
                "{text}"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_call_that_depends_on_itself_is_a_cycle() {
    let result = Graph::build(vec![with(node("a"), |n| n.refs = vec!["a".into()])]);
    assert_eq!(
        result.err(),
        Some(GraphError::Cycle {
            ids: vec!["a".into(), "a".into()]
        })
    );
}

#[test]
fn unknown_references_are_refused_naming_both_ends() {
    let result = Graph::build(vec![
        with(node("a"), |n| n.after = vec!["ghost".into()]),
        with(node("b"), |n| n.refs = vec!["phantom".into()]),
    ]);
    match result {
        Err(e @ GraphError::UnknownReference { .. }) => assert_eq!(
            e.to_string(),
            "`a` depends on `ghost`, which does not exist; `b` depends on `phantom`, which does not exist"
        ),
        other => panic!("{other:?}"),
    }
}

#[test]
fn duplicate_ids_are_refused() {
    assert_eq!(
        Graph::build(vec![node("a"), node("a")]).err(),
        Some(GraphError::DuplicateId { id: "a".into() })
    );
}

#[test]
fn phases_order_one_runtime_before_the_other() -> Result<(), GraphError> {
    let g = Graph::build(vec![
        with(node("be1"), |n| n.phase = 2),
        with(node("fe1"), |n| n.phase = 1),
        with(node("be2"), |n| n.phase = 2),
        with(node("fe2"), |n| n.phase = 1),
    ])?;
    for fe in ["fe1", "fe2"] {
        for be in ["be1", "be2"] {
            assert!(ordered(&g, fe, be));
        }
    }
    assert!(!ordered(&g, "fe1", "fe2"));
    // A back-end call the front end must wait for contradicts the phases: a cycle.
    let contradiction = Graph::build(vec![
        with(node("be"), |n| n.phase = 2),
        with(node("fe"), |n| {
            n.phase = 1;
            n.refs = vec!["be".into()];
        }),
    ]);
    assert!(matches!(contradiction, Err(GraphError::Cycle { .. })));
    Ok(())
}

#[test]
fn the_view_lists_nodes_edges_and_states() -> Result<(), GraphError> {
    let g = Graph::build(vec![
        node("a"),
        with(writes("b", &["file"]), |n| {
            n.after = vec!["a".into()];
            n.display.insert("runtime".into(), "BACKEND".into());
        }),
        reads("c", &["file"]),
    ])?;
    let (nodes, edges) = g.view(&|i| {
        if i == 0 {
            "COMPLETED".into()
        } else {
            "PENDING".into()
        }
    });
    assert_eq!(nodes.len(), 3);
    assert_eq!(nodes[0]["state"], "COMPLETED");
    assert_eq!(nodes[1]["runtime"], "BACKEND");
    assert_eq!(
        edges,
        vec![
            serde_json::json!({"from": "a", "to": "b", "kind": "after"}),
            serde_json::json!({"from": "b", "to": "c", "kind": "conflict", "resource": "file"}),
        ]
    );
    Ok(())
}

#[test]
fn bottom_levels_follow_the_longest_path() -> Result<(), GraphError> {
    let g = Graph::build(vec![
        with(node("a"), |n| n.estimate_ms = 5),
        with(node("b"), |n| {
            n.estimate_ms = 50;
            n.after = vec!["a".into()];
        }),
        with(node("c"), |n| {
            n.estimate_ms = 1;
            n.after = vec!["a".into()];
        }),
    ])?;
    assert_eq!(g.bottom_level(0), 55);
    assert_eq!(g.bottom_level(1), 50);
    assert_eq!(g.bottom_level(2), 1);
    assert_eq!(g.critical_path_ms(), 55);
    Ok(())
}

/// A small deterministic generator (no dependency needed).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

/// Seed 001 §4: only a side-effecting call conflicts, and with every other.
fn conflicts(a: &Access, b: &Access) -> bool {
    a.is_barrier() || b.is_barrier()
}

#[test]
fn every_conflicting_pair_is_ordered_in_model_order_on_random_sets() -> Result<(), GraphError> {
    let mut rng = Lcg(42);
    for round in 0..300 {
        let n = 2 + rng.next(40) as usize;
        let nodes: Vec<NodeSpec> = (0..n)
            .map(|i| {
                let res = |rng: &mut Lcg| format!("r{}", rng.next(4));
                let mut access = Access::safe();
                match rng.next(10) {
                    0 => access = Access::exclusive(),
                    1..=3 => {
                        access.side_effects = true;
                        access.writes = vec![res(&mut rng)];
                        if rng.next(2) == 0 {
                            access.reads = vec![res(&mut rng)];
                        }
                    }
                    4..=6 => access.reads = vec![res(&mut rng), res(&mut rng)],
                    _ => {}
                }
                let after = if i > 0 && rng.next(4) == 0 {
                    vec![format!("n{}", rng.next(i as u64))]
                } else {
                    vec![]
                };
                NodeSpec {
                    id: format!("n{i}"),
                    access,
                    after,
                    estimate_ms: 1,
                    ..NodeSpec::default()
                }
            })
            .collect();
        let g = Graph::build(nodes.clone())?;
        for i in 0..n {
            for j in i + 1..n {
                if conflicts(&nodes[i].access, &nodes[j].access) {
                    assert!(
                        ordered(&g, &nodes[i].id, &nodes[j].id),
                        "round {round}: n{i} {:?} and n{j} {:?} conflict but may overlap",
                        nodes[i].access,
                        nodes[j].access
                    );
                }
            }
        }
        // Conflict edges never point backwards.
        assert!(g
            .edges()
            .iter()
            .filter(|e| e.kind == EdgeKind::Conflict)
            .all(|e| e.from < e.to));
    }
    Ok(())
}

#[test]
fn the_ready_set_releases_nodes_only_after_their_predecessors_on_random_sets(
) -> Result<(), GraphError> {
    use crate::ready::{Priority, ReadySet};
    let mut rng = Lcg(7);
    for _ in 0..200 {
        let n = 1 + rng.next(60) as usize;
        let nodes: Vec<NodeSpec> = (0..n)
            .map(|i| NodeSpec {
                id: format!("n{i}"),
                after: (0..rng.next(3))
                    .filter(|_| i > 0)
                    .map(|_| format!("n{}", rng.next(i as u64)))
                    .collect(),
                access: if rng.next(8) == 0 {
                    Access::exclusive()
                } else {
                    Access::safe()
                },
                estimate_ms: rng.next(50),
                ..NodeSpec::default()
            })
            .collect();
        let g = Graph::build(nodes)?;
        let limit = 1 + rng.next(5) as usize;
        let mut set = ReadySet::new(&g, vec![], vec![limit], limit, Priority::CriticalPath);
        let mut done = vec![false; n];
        let mut running: Vec<usize> = Vec::new();
        while !set.is_finished() {
            while let Some(i) = set.pop_startable() {
                assert!(g.preds(i).iter().all(|&p| done[p]), "n{i} started early");
                running.push(i);
            }
            assert!(running.len() <= limit);
            assert!(!running.is_empty(), "stalled");
            let k = rng.next(running.len() as u64) as usize;
            let i = running.swap_remove(k);
            done[i] = true;
            set.finish(&g, i);
        }
        assert!(done.iter().all(|d| *d));
    }
    Ok(())
}
