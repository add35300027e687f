//! The runtime of asynchronous pipelines and concurrent agents.
//!
//! A pipeline has `S` stage buffers, each holding one entry, and a group of `C` consumers.
//! An iterator position `p` names stage `p mod S` in round `p div S`. The producer may
//! acquire a stage for round `r` once it has committed rounds `0..r` of that stage and
//! every consumer has released round `r − 1`; consumer `c` may take round `r` once the
//! producer committed it and `c` released round `r − 1`. This is exactly what the
//! mbarrier phases of the lowered code enforce (a phase bit per stage), so a program this
//! runtime accepts for every interleaving is one the GPU cannot deadlock or race on.
//!
//! Agents (`agent_switch` / `execute` regions) run on their own threads, but only one
//! runs at a time: a baton passes between them at every pipeline operation, to an agent
//! chosen by a seeded generator (or round-robin). That makes runs reproducible and lets
//! tests explore interleavings adversarially. When every live agent waits, the run stops
//! with a deadlock report naming each agent's wait.

use std::fmt;
use std::sync::{Condvar, Mutex, MutexGuard};

/// How the baton moves between runnable agents.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interleave {
    /// Run an agent until it waits, then the next runnable one in order.
    UntilBlocked,
    /// At every pipeline operation, hand the baton to a runnable agent picked by a
    /// generator seeded with this value (the same seed gives the same interleaving).
    Random(u64),
}

/// Why an agent cannot go on.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Need {
    /// Producer acquire of `pos`.
    Acquire { pipe: usize, pos: u64 },
    /// Consumer `consumer` wait for `pos`.
    Wait { pipe: usize, pos: u64, consumer: u32 },
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum AgentStatus {
    Runnable,
    Waiting { need: Need, site: String },
    Done,
}

#[derive(Clone, Debug)]
struct Stage<T> {
    entry: Option<Vec<T>>,
    /// Rounds committed so far.
    commits: u64,
    /// Whether the producer holds the stage (acquired, not yet committed).
    held: bool,
    /// Rounds each consumer has released.
    releases: Vec<u64>,
    /// Whether each consumer holds the stage (waited, not yet released).
    reading: Vec<bool>,
}

#[derive(Clone, Debug)]
struct Pipe<T> {
    stages: Vec<Stage<T>>,
}

impl<T> Pipe<T> {
    fn at(&self, pos: u64) -> (usize, u64) {
        let s = self.stages.len() as u64;
        ((pos % s) as usize, pos / s)
    }
}

struct World<T> {
    pipes: Vec<Pipe<T>>,
    /// Per agent of the running `agent_switch`; empty outside one (the block runs alone).
    agents: Vec<AgentStatus>,
    /// The agent holding the baton.
    current: usize,
    rng: u64,
    interleave: Interleave,
    /// Set when the run must stop (deadlock or an agent's error): every agent unwinds.
    abort: Option<String>,
    /// The agent whose own error stopped the run (its error is the one to report).
    failed: Option<usize>,
}

/// Pipelines and agents of one running tile block.
pub struct AsyncWorld<T> {
    world: Mutex<World<T>>,
    baton: Condvar,
}

/// An error of the asynchronous runtime.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AsyncError(pub String);

impl fmt::Display for AsyncError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The agent a call comes from: `MAIN` outside `agent_switch`.
pub const MAIN: usize = usize::MAX;

fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl<T: Clone + Send> AsyncWorld<T> {
    /// An empty world.
    pub fn new(interleave: Interleave) -> Self {
        let rng = match interleave {
            Interleave::Random(seed) => seed,
            Interleave::UntilBlocked => 0,
        };
        AsyncWorld {
            world: Mutex::new(World { pipes: Vec::new(), agents: Vec::new(), current: MAIN, rng, interleave, abort: None, failed: None }),
            baton: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, World<T>> {
        // A poisoned lock means an agent thread panicked; its state is still consistent
        // for reporting (every mutation below is a single assignment).
        self.world.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A new pipeline; returns its handle.
    pub fn create_pipeline(&self, stages: u32, consumers: u32) -> usize {
        let mut w = self.lock();
        let stage = Stage {
            entry: None,
            commits: 0,
            held: false,
            releases: vec![0; consumers.max(1) as usize],
            reading: vec![false; consumers.max(1) as usize],
        };
        w.pipes.push(Pipe { stages: vec![stage; stages.max(1) as usize] });
        w.pipes.len() - 1
    }

    /// Number of stages of `pipe`.
    pub fn num_stages(&self, pipe: usize) -> Result<u32, AsyncError> {
        let w = self.lock();
        w.pipes.get(pipe).map(|p| p.stages.len() as u32).ok_or_else(|| AsyncError(format!("no pipeline #{pipe}")))
    }

    fn ready(w: &World<T>, need: &Need) -> Result<bool, AsyncError> {
        match *need {
            Need::Acquire { pipe, pos } => {
                let p = w.pipes.get(pipe).ok_or_else(|| AsyncError(format!("no pipeline #{pipe}")))?;
                let (s, round) = p.at(pos);
                let st = &p.stages[s];
                if st.commits > round {
                    return Err(AsyncError(format!(
                        "producer acquires stage {s} of pipeline #{pipe} for round {round}, which was already committed (the iterator went backwards)"
                    )));
                }
                Ok(st.commits == round && !st.held && st.releases.iter().all(|&r| r >= round))
            }
            Need::Wait { pipe, pos, consumer } => {
                let p = w.pipes.get(pipe).ok_or_else(|| AsyncError(format!("no pipeline #{pipe}")))?;
                let (s, round) = p.at(pos);
                let st = &p.stages[s];
                let c = consumer as usize;
                if c >= st.releases.len() {
                    return Err(AsyncError(format!("consumer {consumer} is not in the group of pipeline #{pipe} ({} consumers)", st.releases.len())));
                }
                if st.releases[c] > round {
                    return Err(AsyncError(format!(
                        "consumer {consumer} waits for stage {s} of pipeline #{pipe} in round {round}, which it already released (the iterator went backwards)"
                    )));
                }
                Ok(st.commits > round && st.releases[c] == round && !st.reading[c])
            }
        }
    }

    fn describe(w: &World<T>, need: &Need) -> String {
        match *need {
            Need::Acquire { pipe, pos } => {
                let p = &w.pipes[pipe];
                let (s, round) = p.at(pos);
                let st = &p.stages[s];
                let why = if st.commits < round {
                    format!("round {} of that stage is not committed yet", st.commits)
                } else if st.held {
                    "the stage is still held by an uncommitted acquire".to_string()
                } else {
                    let late: Vec<String> = st
                        .releases
                        .iter()
                        .enumerate()
                        .filter(|(_, &r)| r < round)
                        .map(|(c, r)| format!("consumer {c} released {r} round(s)"))
                        .collect();
                    format!("not every consumer released round {}: {}", round.saturating_sub(1), late.join(", "))
                };
                format!("producer_acquire of stage {s} of pipeline #{pipe} for round {round} ({why})")
            }
            Need::Wait { pipe, pos, consumer } => {
                let p = &w.pipes[pipe];
                let (s, round) = p.at(pos);
                let st = &p.stages[s];
                let why = if st.commits <= round {
                    format!("stage {s} is not committed for round {round}: {} round(s) committed", st.commits)
                } else {
                    format!("consumer {consumer} has not released the previous round")
                };
                format!("consumer_wait of consumer {consumer} on stage {s} of pipeline #{pipe} for round {round} ({why})")
            }
        }
    }

    fn deadlock_report(w: &World<T>, me: usize, my_need: &Need, my_site: &str) -> String {
        let mut lines = Vec::new();
        if w.agents.is_empty() || me == MAIN {
            lines.push(format!("  the block, at {my_site}: {}", Self::describe(w, my_need)));
        } else {
            for (i, a) in w.agents.iter().enumerate() {
                match a {
                    AgentStatus::Waiting { need, site } => lines.push(format!("  agent {i}, at {site}: {}", Self::describe(w, need))),
                    AgentStatus::Done => lines.push(format!("  agent {i} has finished")),
                    AgentStatus::Runnable if i == me => {
                        lines.push(format!("  agent {i}, at {my_site}: {}", Self::describe(w, my_need)))
                    }
                    AgentStatus::Runnable => {}
                }
            }
        }
        format!("deadlock: every agent waits on a pipeline\n{}", lines.join("\n"))
    }

    /// Picks the next agent to hold the baton (`None`: nobody can run).
    fn pick(w: &mut World<T>, me: usize, keep_me: bool) -> Option<usize> {
        let n = w.agents.len();
        let runnable: Vec<usize> = (0..n)
            .filter(|&i| match &w.agents[i] {
                AgentStatus::Runnable => true,
                AgentStatus::Waiting { need, .. } => Self::ready(w, need).unwrap_or(true),
                AgentStatus::Done => false,
            })
            .collect();
        if runnable.is_empty() {
            return None;
        }
        match w.interleave {
            Interleave::UntilBlocked => {
                if keep_me && runnable.contains(&me) {
                    return Some(me);
                }
                let start = if me == MAIN { 0 } else { me + 1 };
                (0..n).map(|k| (start + k) % n).find(|i| runnable.contains(i))
            }
            Interleave::Random(_) => {
                let k = (splitmix(&mut w.rng) % runnable.len() as u64) as usize;
                Some(runnable[k])
            }
        }
    }

    /// Waits (baton released) until `me` holds the baton again; an abort ends the wait.
    fn await_turn<'g>(&'g self, mut w: MutexGuard<'g, World<T>>, me: usize) -> Result<MutexGuard<'g, World<T>>, AsyncError> {
        loop {
            if let Some(msg) = &w.abort {
                return Err(AsyncError(msg.clone()));
            }
            if w.current == me {
                return Ok(w);
            }
            w = self.baton.wait(w).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Blocks `me` until `need` holds (other agents run meanwhile), then applies `take`.
    fn block_on(&self, me: usize, need: Need, site: &str, take: impl FnOnce(&mut World<T>)) -> Result<(), AsyncError> {
        let mut w = self.lock();
        if let Some(msg) = &w.abort {
            return Err(AsyncError(msg.clone()));
        }
        loop {
            if Self::ready(&w, &need)? {
                take(&mut w);
                if me != MAIN && !w.agents.is_empty() {
                    w.agents[me] = AgentStatus::Runnable;
                    // Adversarial interleaving: after every pipeline step another agent may run.
                    if let Some(next) = Self::pick(&mut w, me, true) {
                        if next != me {
                            w.current = next;
                            self.baton.notify_all();
                            drop(self.await_turn(w, me)?);
                        }
                    }
                }
                return Ok(());
            }
            if me == MAIN || w.agents.is_empty() {
                let report = Self::deadlock_report(&w, MAIN, &need, site);
                return Err(AsyncError(report));
            }
            w.agents[me] = AgentStatus::Waiting { need: need.clone(), site: site.to_string() };
            match Self::pick(&mut w, me, false) {
                Some(next) => {
                    w.current = next;
                    self.baton.notify_all();
                    w = self.await_turn(w, me)?;
                }
                None => {
                    let report = Self::deadlock_report(&w, me, &need, site);
                    w.abort = Some(report.clone());
                    self.baton.notify_all();
                    return Err(AsyncError(report));
                }
            }
        }
    }

    /// `producer_acquire`: waits until the stage at `pos` may be refilled.
    pub fn acquire(&self, me: usize, pipe: usize, pos: u64, site: &str) -> Result<(), AsyncError> {
        self.block_on(me, Need::Acquire { pipe, pos }, site, |w| {
            let (s, _) = w.pipes[pipe].at(pos);
            w.pipes[pipe].stages[s].held = true;
        })
    }

    /// The entry currently in the stage at `pos` (`None`: never written).
    pub fn entry(&self, pipe: usize, pos: u64) -> Result<Option<Vec<T>>, AsyncError> {
        let w = self.lock();
        let p = w.pipes.get(pipe).ok_or_else(|| AsyncError(format!("no pipeline #{pipe}")))?;
        let (s, _) = p.at(pos);
        Ok(p.stages[s].entry.clone())
    }

    /// `producer_write`: stores the entry of an acquired stage.
    pub fn write(&self, pipe: usize, pos: u64, entry: Vec<T>) -> Result<(), AsyncError> {
        let mut w = self.lock();
        let p = w.pipes.get_mut(pipe).ok_or_else(|| AsyncError(format!("no pipeline #{pipe}")))?;
        let (s, round) = p.at(pos);
        let st = &mut p.stages[s];
        if !st.held || st.commits != round {
            return Err(AsyncError(format!("producer writes stage {s} of pipeline #{pipe} for round {round} without holding it (no producer_acquire)")));
        }
        st.entry = Some(entry);
        Ok(())
    }

    /// `producer_commit`: publishes the stage at `pos` to the consumers.
    pub fn commit(&self, pipe: usize, pos: u64) -> Result<(), AsyncError> {
        let mut w = self.lock();
        let p = w.pipes.get_mut(pipe).ok_or_else(|| AsyncError(format!("no pipeline #{pipe}")))?;
        let (s, round) = p.at(pos);
        let st = &mut p.stages[s];
        if !st.held || st.commits != round {
            return Err(AsyncError(format!("producer commits stage {s} of pipeline #{pipe} for round {round} without holding it")));
        }
        if st.entry.is_none() {
            return Err(AsyncError(format!("producer commits stage {s} of pipeline #{pipe} for round {round} without writing it")));
        }
        st.held = false;
        st.commits += 1;
        Ok(())
    }

    /// `consumer_wait`: waits until the stage at `pos` is committed for this round.
    pub fn wait(&self, me: usize, pipe: usize, pos: u64, consumer: u32, site: &str) -> Result<(), AsyncError> {
        self.block_on(me, Need::Wait { pipe, pos, consumer }, site, |w| {
            let (s, _) = w.pipes[pipe].at(pos);
            w.pipes[pipe].stages[s].reading[consumer as usize] = true;
        })
    }

    /// `consumer_read`: the committed entry of a stage the consumer waited for.
    pub fn read(&self, pipe: usize, pos: u64, consumer: u32) -> Result<Vec<T>, AsyncError> {
        let w = self.lock();
        let p = w.pipes.get(pipe).ok_or_else(|| AsyncError(format!("no pipeline #{pipe}")))?;
        let (s, round) = p.at(pos);
        let st = &p.stages[s];
        let c = consumer as usize;
        if c >= st.reading.len() || !st.reading[c] || st.commits <= round || st.releases[c] != round {
            return Err(AsyncError(format!(
                "consumer {consumer} reads stage {s} of pipeline #{pipe} for round {round} before it is committed and waited for"
            )));
        }
        st.entry.clone().ok_or_else(|| AsyncError(format!("stage {s} of pipeline #{pipe} was committed without an entry")))
    }

    /// `consumer_release`: this consumer is done with the stage at `pos`.
    pub fn release(&self, pipe: usize, pos: u64, consumer: u32) -> Result<(), AsyncError> {
        let mut w = self.lock();
        let p = w.pipes.get_mut(pipe).ok_or_else(|| AsyncError(format!("no pipeline #{pipe}")))?;
        let (s, round) = p.at(pos);
        let st = &mut p.stages[s];
        let c = consumer as usize;
        if c >= st.reading.len() || !st.reading[c] || st.releases[c] != round {
            return Err(AsyncError(format!("consumer {consumer} releases stage {s} of pipeline #{pipe} for round {round} without holding it")));
        }
        st.reading[c] = false;
        st.releases[c] += 1;
        Ok(())
    }

    /// Runs `n` agents concurrently, one at a time, baton-passing at pipeline operations;
    /// `body(i)` runs agent `i`. Returns each agent's result, or the first failure (a
    /// deadlock, or an agent's own error, which stops the others).
    pub fn run_agents<R: Send, E: Send + From<AsyncError>>(
        &self,
        n: usize,
        body: impl Fn(usize) -> Result<R, E> + Sync,
    ) -> Result<Vec<R>, E> {
        {
            let mut w = self.lock();
            if !w.agents.is_empty() {
                return Err(E::from(AsyncError("agent_switch inside an agent is not supported".into())));
            }
            w.agents = vec![AgentStatus::Runnable; n];
            w.abort = None;
            w.failed = None;
            w.current = 0;
            if let Some(first) = Self::pick(&mut w, MAIN, false) {
                w.current = first;
            }
        }
        let results: Vec<Result<R, E>> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..n)
                .map(|i| {
                    let body = &body;
                    scope.spawn(move || -> Result<R, E> {
                        let w = self.lock();
                        drop(self.await_turn(w, i)?);
                        let out = body(i);
                        let mut w = self.lock();
                        match &out {
                            Ok(_) => w.agents[i] = AgentStatus::Done,
                            Err(_) => {
                                w.agents[i] = AgentStatus::Done;
                                if w.abort.is_none() {
                                    w.abort = Some(format!("agent {i} failed"));
                                    w.failed = Some(i);
                                }
                            }
                        }
                        if w.abort.is_none() {
                            if let Some(next) = Self::pick(&mut w, i, false) {
                                w.current = next;
                            } else if w.agents.iter().any(|a| *a != AgentStatus::Done) {
                                let waits: Vec<String> = w
                                    .agents
                                    .iter()
                                    .enumerate()
                                    .filter_map(|(k, a)| match a {
                                        AgentStatus::Waiting { need, site } => Some(format!("  agent {k}, at {site}: {}", Self::describe(&w, need))),
                                        _ => None,
                                    })
                                    .collect();
                                w.abort = Some(format!(
                                    "deadlock: agent {i} finished and every other agent waits on a pipeline\n{}",
                                    waits.join("\n")
                                ));
                            }
                        }
                        self.baton.notify_all();
                        out
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|_| Err(E::from(AsyncError("an agent thread panicked".into())))))
                .collect()
        });
        let (abort, failed) = {
            let mut w = self.lock();
            w.agents.clear();
            w.current = MAIN;
            (w.abort.take(), w.failed.take())
        };
        let mut out = Vec::with_capacity(n);
        let mut first_err: Option<E> = None;
        // An agent's own error is more precise than the "agent i failed" it caused in the
        // others; a deadlock report comes from whichever agent detected it.
        for (i, r) in results.into_iter().enumerate() {
            match r {
                Ok(v) => out.push(v),
                Err(e) => {
                    if first_err.is_none() || failed == Some(i) {
                        first_err = Some(e);
                    }
                }
            }
        }
        match (first_err, abort) {
            (Some(e), _) => Err(e),
            (None, Some(msg)) => Err(E::from(AsyncError(msg))),
            (None, None) => Ok(out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Producer agent puts `0..n` through a pipeline, consumer sums them.
    fn producer_consumer(stages: u32, n: u64, interleave: Interleave) -> Result<Vec<u64>, AsyncError> {
        let world = AsyncWorld::<u64>::new(interleave);
        let pipe = world.create_pipeline(stages, 1);
        let sums = world.run_agents(2, |agent| -> Result<u64, AsyncError> {
            let mut total = 0;
            for pos in 0..n {
                if agent == 0 {
                    world.acquire(agent, pipe, pos, "put")?;
                    world.write(pipe, pos, vec![pos * 10])?;
                    world.commit(pipe, pos)?;
                } else {
                    world.wait(agent, pipe, pos, 0, "get")?;
                    total += world.read(pipe, pos, 0)?[0];
                    world.release(pipe, pos, 0)?;
                }
            }
            Ok(total)
        })?;
        Ok(sums)
    }

    #[test]
    fn every_interleaving_delivers_every_entry_once() {
        for stages in 1..4 {
            for seed in 0..40 {
                let sums = producer_consumer(stages, 9, Interleave::Random(seed)).unwrap();
                assert_eq!(sums[1], (0..9).map(|x| x * 10).sum::<u64>(), "stages {stages} seed {seed}");
            }
            assert_eq!(producer_consumer(stages, 9, Interleave::UntilBlocked).unwrap()[1], 360);
        }
    }

    #[test]
    fn a_lone_block_waiting_for_itself_is_a_deadlock() {
        let world = AsyncWorld::<u64>::new(Interleave::UntilBlocked);
        let pipe = world.create_pipeline(2, 1);
        let e = world.wait(MAIN, pipe, 0, 0, "loc").unwrap_err();
        assert!(e.0.contains("deadlock") && e.0.contains("not committed for round 0"), "{e}");
        // Two acquires of the same round-0 stage without a consumer release in between.
        world.acquire(MAIN, pipe, 0, "a").unwrap();
        world.write(pipe, 0, vec![1]).unwrap();
        world.commit(pipe, 0).unwrap();
        world.acquire(MAIN, pipe, 1, "b").unwrap();
        world.write(pipe, 1, vec![2]).unwrap();
        world.commit(pipe, 1).unwrap();
        let e = world.acquire(MAIN, pipe, 2, "c").unwrap_err();
        assert!(e.0.contains("deadlock") && e.0.contains("consumer 0 released 0 round(s)"), "{e}");
    }

    #[test]
    fn consumers_that_never_release_deadlock_the_producer() {
        for seed in 0..10 {
            let world = AsyncWorld::<u64>::new(Interleave::Random(seed));
            let pipe = world.create_pipeline(2, 1);
            let r = world.run_agents(2, |agent| -> Result<(), AsyncError> {
                for pos in 0..4 {
                    if agent == 0 {
                        world.acquire(agent, pipe, pos, "put")?;
                        world.write(pipe, pos, vec![pos])?;
                        world.commit(pipe, pos)?;
                    } else {
                        world.wait(agent, pipe, pos, 0, "get")?;
                        // no release: the producer can never refill stage 0
                    }
                }
                Ok(())
            });
            let e = r.unwrap_err();
            assert!(e.0.contains("deadlock"), "{e}");
        }
    }

    #[test]
    fn reading_without_waiting_is_reported() {
        let world = AsyncWorld::<u64>::new(Interleave::UntilBlocked);
        let pipe = world.create_pipeline(2, 1);
        let e = world.read(pipe, 0, 0).unwrap_err();
        assert!(e.0.contains("before it is committed"), "{e}");
        assert!(world.write(pipe, 0, vec![1]).unwrap_err().0.contains("without holding"));
    }

    #[test]
    fn two_consumers_both_see_every_entry() {
        for seed in 0..20 {
            let world = AsyncWorld::<u64>::new(Interleave::Random(seed));
            let pipe = world.create_pipeline(2, 2);
            let sums = world
                .run_agents(3, |agent| -> Result<u64, AsyncError> {
                    let mut t = 0;
                    for pos in 0..7u64 {
                        if agent == 0 {
                            world.acquire(agent, pipe, pos, "put")?;
                            world.write(pipe, pos, vec![pos + 1])?;
                            world.commit(pipe, pos)?;
                        } else {
                            let c = agent as u32 - 1;
                            world.wait(agent, pipe, pos, c, "get")?;
                            t += world.read(pipe, pos, c)?[0];
                            world.release(pipe, pos, c)?;
                        }
                    }
                    Ok(t)
                })
                .unwrap();
            assert_eq!(&sums[1..], &[28, 28]);
        }
    }
}
