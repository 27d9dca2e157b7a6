//! The kernel driven by Rust processes: latency, TTL expiry, watches,
//! pauses, crashes, clock drift, limits and determinism.

use sim::{run_processes, Ctx, Ending, Fault, FaultProfile, Happening, Limit, Next, Note, Plan, Sim, SimLimits};

fn run(plan: Plan, body: impl Fn(Ctx) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()>>>) -> (Ending, Sim) {
    run_processes(Sim::new(plan, SimLimits::default()), body, |_| false)
}

/// Each process tries to create the key once and notes whether it won.
fn race(ctx: Ctx) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()>>> {
    Box::pin(async move {
        let result = ctx.compare_and_swap("lock", &ctx.name(), None, None, Some(1_000)).await.unwrap();
        match result {
            Ok(version) => ctx.note(Note::Acquired { key: "lock".into(), version }),
            Err(_) => ctx.note(Note::NotAcquired { key: "lock".into() }),
        }
    })
}

fn notes(sim: &Sim) -> Vec<(u32, Note)> {
    sim.trace()
        .iter()
        .filter_map(|event| match &event.happening {
            Happening::Note { note } => Some((event.process.unwrap(), note.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn exactly_one_of_several_racing_creates_wins() {
    for seed in 0..50 {
        let (ending, sim) = run(Plan::calm(seed, 4), race);
        assert_eq!(ending, Ending::AllFinished);
        let winners = notes(&sim).iter().filter(|(_, note)| matches!(note, Note::Acquired { .. })).count();
        assert_eq!(winners, 1, "seed {seed}");
    }
}

#[test]
fn same_plan_same_trace() {
    let profile = FaultProfile::default();
    for seed in 0..30 {
        let plan = Plan::generate(seed, 3, &profile);
        let first = run(plan.clone(), race).1.trace().to_vec();
        let second = run(plan, race).1.trace().to_vec();
        assert_eq!(first, second, "seed {seed}");
    }
}

#[test]
fn a_watch_wakes_when_the_key_expires_and_the_waiter_then_wins() {
    let plan = Plan::calm(7, 2);
    let (ending, sim) = run(plan, |ctx| {
        Box::pin(async move {
            if ctx.process() == 1 {
                ctx.sleep(50).await; // let p1 win first
            }
            loop {
                match ctx.compare_and_swap("lock", &ctx.name(), None, None, Some(1_000)).await.unwrap() {
                    Ok(version) => {
                        ctx.note(Note::Acquired { key: "lock".into(), version });
                        return;
                    }
                    Err(Some(current)) => {
                        ctx.watch("lock", current.version).await.unwrap();
                    }
                    Err(None) => {}
                }
            }
        })
    });
    assert_eq!(ending, Ending::AllFinished);
    let acquired: Vec<(u32, u64)> = notes(&sim)
        .into_iter()
        .filter_map(|(process, note)| match note {
            Note::Acquired { version, .. } => Some((process, version)),
            _ => None,
        })
        .collect();
    assert_eq!(acquired, vec![(0, 2), (1, 4)], "p2 wins after p1's key expires (version 3)");
    let expiry = sim.trace().iter().find(|event| matches!(event.happening, Happening::Expire { .. })).unwrap();
    assert!((1_000..1_100).contains(&expiry.at_ms), "expired at {}", expiry.at_ms);
}

#[test]
fn a_pause_holds_back_replies_but_not_the_local_clock() {
    let plan = Plan { faults: vec![Fault::Pause { process: 0, at_ms: 5, duration_ms: 2_000 }], ..Plan::calm(3, 1) };
    let (_, sim) = run(plan, |ctx| {
        Box::pin(async move {
            let before = ctx.now();
            ctx.get("k").await.unwrap();
            ctx.note(Note::Console { text: format!("{}", ctx.now() - before) });
        })
    });
    let waited = notes(&sim).into_iter().find_map(|(_, note)| match note {
        Note::Console { text } => Some(text.parse::<u64>().unwrap()),
        _ => None,
    });
    assert!(waited.unwrap() >= 2_000, "the reply waited for the pause: {waited:?}");
}

#[test]
fn a_crashed_process_never_resumes_but_its_request_still_lands() {
    let plan = Plan { faults: vec![Fault::Crash { process: 0, at_ms: 1 }], ..Plan::calm(3, 2) };
    let (ending, sim) = run(plan, |ctx| {
        Box::pin(async move {
            if ctx.process() == 0 {
                let _ = ctx.compare_and_swap("k", "from p1", None, None, None).await.unwrap();
                ctx.note(Note::Console { text: "p1 resumed".into() });
            } else {
                ctx.sleep(100).await;
                let record = ctx.get("k").await.unwrap();
                ctx.note(Note::Console { text: format!("p2 read {:?}", record.map(|record| record.value)) });
            }
        })
    });
    assert_eq!(ending, Ending::AllFinished);
    assert_eq!(notes(&sim), vec![(1, Note::Console { text: "p2 read Some(\"from p1\")".into() })]);
    let happenings: Vec<&Happening> = sim.trace().iter().map(|event| &event.happening).collect();
    assert!(happenings.iter().any(|h| matches!(h, Happening::Crash)));
    assert!(happenings.iter().any(|h| matches!(h, Happening::Lost { .. })), "p1's reply is lost");
}

#[test]
fn drifting_clocks_and_jumps_change_local_time_only() {
    let plan = Plan {
        faults: vec![
            Fault::ClockDrift { process: 0, percent: 10 },
            Fault::ClockJump { process: 0, at_ms: 500, forward_ms: 700 },
        ],
        ..Plan::calm(3, 1)
    };
    let (_, sim) = run(plan, |ctx| Box::pin(async move { ctx.sleep(1_000).await }));
    let woke = sim.trace().iter().find(|event| matches!(event.happening, Happening::Complete { .. })).unwrap();
    // 1000 local ms: 500 store ms give 550 local, the jump adds 700: done at 500.
    assert_eq!(woke.at_ms, 500);
    assert_eq!(woke.local_ms, Some(1_250));
}

#[test]
fn waiting_forever_is_stuck_not_a_hang() {
    let (ending, _) = run(Plan::calm(1, 2), |ctx| {
        Box::pin(async move {
            ctx.watch("never", 1).await.unwrap();
        })
    });
    assert_eq!(ending, Ending::Stuck { waiting: vec![0, 1] });
}

#[test]
fn limits_end_runaway_runs_with_a_named_ending() {
    let limits = SimLimits { calls_max: 100, ..SimLimits::default() };
    let (ending, _) = run_processes(
        Sim::new(Plan::calm(1, 1), limits),
        |ctx| {
            Box::pin(async move {
                loop {
                    ctx.get("k").await.unwrap();
                }
            })
        },
        |_| false,
    );
    assert_eq!(ending, Ending::Limit { limit: Limit::Calls });
    let (ending, _) = run(Plan::calm(1, 1), |ctx| {
        Box::pin(async move {
            loop {
                ctx.sleep(1_000).await;
            }
        })
    });
    assert_eq!(ending, Ending::Limit { limit: Limit::Time });
}

#[test]
fn a_failure_is_recorded_even_after_the_process_finished() {
    // Code can run on after its workload returned (a loop started by its last
    // call); a stop blamed on it must still be on the record.
    let (ending, mut sim) = run(Plan::calm(1, 1), |ctx| Box::pin(async move { ctx.sleep(5).await }));
    assert_eq!(ending, Ending::AllFinished);
    sim.fail(0, "lock.js kept running".into());
    assert_eq!(notes(&sim).last(), Some(&(0, Note::Failed { message: "lock.js kept running".into() })));
    // An unknown process's failure is the run's own.
    sim.fail(9, "broken".into());
    let last = sim.trace().last().unwrap();
    assert_eq!(last.process, None);
}

#[test]
fn a_plan_outside_the_process_limit_ends_at_once_with_a_named_limit() {
    let limits = SimLimits::default();
    for processes in [0, limits.processes_max + 1] {
        let mut sim = Sim::new(Plan::calm(1, processes), limits.clone());
        assert_eq!(sim.next_step(), Next::Done(Ending::Limit { limit: Limit::Processes }), "{processes} processes");
        assert!(Limit::Processes.describe(&limits).contains(&format!("1 to {}", limits.processes_max)));
    }
}

#[test]
fn a_token_whose_fault_names_a_missing_process_is_refused_by_name() {
    let error = sim::token::decode("v1.s1.n2.l1-20.r.C5@100").unwrap_err();
    assert!(error.to_string().contains("process 5 (p6)"), "{error}");
    assert!(sim::token::decode("v1.s1.n2.l1-20.r.C1@100").is_ok());
}

/// Drives `sim` by hand: delivers every answer and returns the calls delivered, in order.
fn deliver_all(sim: &mut Sim) -> (Vec<sim::CallId>, Ending) {
    let mut delivered = Vec::new();
    loop {
        match sim.next_step() {
            Next::Resume { call, .. } => delivered.push(call),
            Next::Crashed { .. } => {}
            Next::Done(ending) => return (delivered, ending),
        }
    }
}

#[test]
fn what_a_process_does_after_its_workload_finished_is_part_of_the_run() {
    let mut sim = Sim::new(Plan::calm(3, 2), SimLimits::default());
    // p2 holds a key; p1 finishes with a delete still on its way, then, from a
    // task it left running, sleeps and writes.
    let p2_key = sim
        .call(
            1,
            sim::Call::Cas {
                key: "k".into(),
                next_value: "p2".into(),
                current_value: None,
                version: None,
                ttl_ms: None,
            },
        )
        .unwrap();
    sim.finish(1).unwrap();
    let delete = sim.call(0, sim::Call::Delete { key: "other".into(), version: None }).unwrap();
    sim.finish(0).unwrap();
    let sleep = sim.call(0, sim::Call::Sleep { ms: 50 }).unwrap();
    let (mut delivered, ending) = deliver_all(&mut sim);
    delivered.sort_unstable();
    assert_eq!(delivered, vec![p2_key, delete, sleep], "calls under way at the finish and made after it are answered");
    assert_eq!(ending, Ending::AllFinished);
    // The sleep's end resumed p1's task, which writes p2's key: recorded, applied.
    let mut sim = Sim::new(Plan::calm(3, 2), SimLimits::default());
    sim.finish(1).unwrap();
    sim.finish(0).unwrap();
    let write = sim.call(
        0,
        sim::Call::Cas { key: "k".into(), next_value: "p1".into(), current_value: None, version: None, ttl_ms: None },
    );
    assert!(write.is_ok(), "a finished process may still call");
    let (delivered, _) = deliver_all(&mut sim);
    assert_eq!(delivered.len(), 1);
    assert!(sim.store().get("k").is_some(), "its write reached the store");
    assert!(sim.note(0, Note::Console { text: "after".into() }).is_ok(), "a finished process may still print");
}

#[test]
fn a_finished_process_waiting_on_a_watch_does_not_keep_the_run_going() {
    let mut sim = Sim::new(Plan::calm(3, 1), SimLimits::default());
    sim.finish(0).unwrap();
    sim.call(0, sim::Call::Watch { key: "never".into(), after_version: 1 }).unwrap();
    let (delivered, ending) = deliver_all(&mut sim);
    assert_eq!((delivered, ending), (vec![], Ending::AllFinished));
}

#[test]
fn a_crashed_process_calls_no_more() {
    let plan = Plan { faults: vec![Fault::Crash { process: 0, at_ms: 5 }], ..Plan::calm(3, 1) };
    let mut sim = Sim::new(plan, SimLimits::default());
    sim.call(0, sim::Call::Sleep { ms: 100 }).unwrap();
    let (_, ending) = deliver_all(&mut sim);
    assert_eq!(ending, Ending::AllFinished);
    assert!(sim.call(0, sim::Call::Sleep { ms: 1 }).is_err());
}
