//! The census shared among ranks (the protocol `mpirun` runs, here with ranks
//! as threads of one process) writes the same bytes as the census in one
//! process, for 1 to 4 ranks, also when every rank stops at a checkpoint and
//! continues from it.

use std::path::Path;
use std::sync::Arc;

use chomp3::f::census::{self, Census, CheckpointError, Params, Run};
use chomp3::f::census_file;
use chomp3::f::engine::ranks::{Local, Ranks};

/// Rows over several chunks of 1024, so that every rank count hands column
/// sets, diagonal values and settled rows from rank to rank; short batches, so
/// that the settle chain crosses chunks often.
const PARAMS: Params = Params {
    last_row: 3500,
    max_columns: 20_000,
    batch: 360,
};

fn pool() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
}

/// The census files' bytes (table, then descriptors).
fn files(c: &Census, dir: &Path) -> (Vec<u8>, Vec<u8>) {
    let (tsv, c3d) = (dir.join("c.tsv"), dir.join("c.c3d"));
    let mut set = chomp3::base::atomic_write::FileSet::new();
    census_file::write_tsv(&mut set, &c.rows, &c.start_bounds, c.columns, "test", &tsv).unwrap();
    census_file::write_descriptors(
        &mut set,
        &c.rows,
        &c.start_bounds,
        &c.facts,
        c.columns,
        &c3d,
    )
    .unwrap();
    set.commit().unwrap();
    (std::fs::read(tsv).unwrap(), std::fs::read(c3d).unwrap())
}

/// Runs `body` on every rank of a group of `size`, each on its own thread;
/// returns rank 0's answer.
fn on_ranks<T: Send>(size: u32, body: impl Fn(Arc<dyn Ranks>) -> Option<T> + Sync) -> T {
    let group = Local::group(size);
    std::thread::scope(|s| {
        let handles: Vec<_> = group
            .into_iter()
            .map(|rank| {
                let body = &body;
                s.spawn(move || body(Arc::new(rank)))
            })
            .collect();
        let mut answers: Vec<Option<T>> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        assert!(
            answers[1..].iter().all(Option::is_none),
            "only rank 0 answers"
        );
        answers.swap_remove(0).expect("rank 0 answers")
    })
}

fn run_to_end(mut run: Run) -> Option<Census> {
    let pool = pool();
    while !run.done() {
        run.step(&pool);
    }
    run.finish()
}

#[test]
fn one_to_four_ranks_write_the_census_of_one_process() {
    let dir = tempfile::tempdir().unwrap();
    let single = census::census(PARAMS, &pool(), &mut |_, _| {});
    assert_eq!(single.rows.iter().filter(|r| r.is_none()).count(), 0);
    let want = files(&single, dir.path());
    for size in 1..=4 {
        let shared = on_ranks(size, |ranks| run_to_end(Run::shared(PARAMS, ranks)));
        assert!(files(&shared, dir.path()) == want, "{size} ranks");
    }
}

#[test]
fn ranks_stopped_at_a_checkpoint_continue_to_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let single = census::census(PARAMS, &pool(), &mut |_, _| {});
    let want = files(&single, dir.path());
    for (size, batches) in [(2, 3), (3, 7), (4, 12)] {
        // Every rank saves after the same number of batches.
        let saved: Vec<Vec<u8>> = on_ranks(size, |ranks| {
            let pool = pool();
            let rank = ranks.rank();
            let mut run = Run::shared(PARAMS, ranks.clone());
            for _ in 0..batches {
                run.step(&pool);
            }
            assert!(!run.done());
            let mut bytes = Vec::new();
            run.save(&mut bytes).unwrap();
            let all = chomp3::f::engine::ranks::gather(&*ranks, bytes)?;
            assert_eq!(rank, 0);
            Some(all)
        });
        // A rank's file is refused by another rank.
        let other = on_ranks(size, |ranks| {
            let file = &saved[((ranks.rank() + 1) % size) as usize];
            let got = Run::load_shared(&mut file.as_slice(), PARAMS, ranks.clone());
            (ranks.rank() == 0).then_some(matches!(got, Err(CheckpointError::OtherRank { .. })))
        });
        assert!(other, "{size} ranks: rank 0 took rank 1's checkpoint");
        let resumed = on_ranks(size, |ranks| {
            let file = &saved[ranks.rank() as usize];
            run_to_end(Run::load_shared(&mut file.as_slice(), PARAMS, ranks).unwrap())
        });
        assert!(
            files(&resumed, dir.path()) == want,
            "{size} ranks, saved after {batches} batches"
        );
    }
}

/// Resumed from the newest column every rank saved, the ranks delete their
/// files of later columns (a killed run's, which not every rank has): where
/// chunks move depends on timing, so this run's files at those columns could
/// otherwise make a set with them that does not fit together.
#[test]
fn resumed_ranks_delete_their_files_of_later_columns() {
    use chomp3::f::census::rank_files::RankFiles;
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("c.c3k");
    let saved: Vec<Vec<u8>> = on_ranks(2, |ranks| {
        let mut run = Run::shared(PARAMS, ranks.clone());
        for _ in 0..3 {
            run.step(&pool());
        }
        let mut bytes = Vec::new();
        run.save(&mut bytes).unwrap();
        chomp3::f::engine::ranks::gather(&*ranks, bytes)
    });
    let name = |rank: u32, column: u32| dir.path().join(format!("c.c3k.{rank}-of-2.at-{column}"));
    for (rank, bytes) in saved.iter().enumerate() {
        std::fs::write(name(rank as u32, 1080), bytes).unwrap();
    }
    // Rank 0 alone saved at a later column (its file is never read).
    std::fs::write(name(0, 1440), &saved[0]).unwrap();
    let column = on_ranks(2, |ranks| {
        let files = RankFiles { base: base.clone() };
        let (run, left_over) = files.resume_or_start(PARAMS, ranks.clone()).unwrap();
        assert!(!left_over);
        (ranks.rank() == 0).then_some(run.columns())
    });
    assert_eq!(column, 1080);
    assert!(!name(0, 1440).exists(), "the later file is deleted");
    assert!(name(0, 1080).exists() && name(1, 1080).exists());
}

/// Chunks dealt to the ranks several at a time (as censuses whose
/// checkpoints are of format 6 dealt them) move into runs of chunks in order
/// at the first batch's end, with their rows, and the census writes the same
/// bytes; a checkpoint keeps the owners it was saved with.
#[test]
fn chunks_dealt_in_turns_move_into_runs_and_a_checkpoint_keeps_its_owners() {
    let dir = tempfile::tempdir().unwrap();
    let single = census::census(PARAMS, &pool(), &mut |_, _| {});
    let want = files(&single, dir.path());
    let chunks = PARAMS.last_row / 1024 + 1;
    for (size, turn, batches) in [(2, 1, 5), (3, 1, 9), (2, 2, 2), (4, 1, 3)] {
        let saved: Vec<(Vec<u8>, Vec<u32>)> = on_ranks(size, |ranks| {
            let pool = pool();
            let mut run = Run::dealt(PARAMS, ranks.clone(), turn);
            let dealt: Vec<u32> = (0..chunks).map(|c| (c / turn) % size).collect();
            assert_eq!(run.owners().list(chunks), dealt);
            for _ in 0..batches {
                run.step(&pool);
                let owners = run.owners().list(chunks);
                assert!(owners.windows(2).all(|w| w[0] <= w[1]), "runs: {owners:?}");
            }
            let mut bytes = Vec::new();
            run.save(&mut bytes).unwrap();
            let owners = run.owners().list(chunks);
            chomp3::f::engine::ranks::gather(&*ranks, bytes)
                .map(|all| all.into_iter().map(|b| (b, owners.clone())).collect())
        });
        let resumed = on_ranks(size, |ranks| {
            let (file, owners) = &saved[ranks.rank() as usize];
            let run = Run::load_shared(&mut file.as_slice(), PARAMS, ranks).unwrap();
            assert_eq!(
                &run.owners().list(chunks),
                owners,
                "the checkpoint's owners"
            );
            run_to_end(run)
        });
        assert!(
            files(&resumed, dir.path()) == want,
            "{size} ranks, {turn} chunks at a time"
        );
    }
}

/// A build without MPI started by an MPI launcher as one of several processes
/// refuses (each process would compute the whole census and write its files),
/// and writes nothing.
#[cfg(not(feature = "mpi"))]
#[test]
fn a_build_without_mpi_refuses_to_be_one_of_several_ranks() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("census.tsv");
    for (var, value) in [
        ("OMPI_COMM_WORLD_SIZE", "3"),
        ("PMI_SIZE", "2"),
        ("PMIX_RANK", "1"),
    ] {
        let got = std::process::Command::new(env!("CARGO_BIN_EXE_chomp3"))
            .args(["census", "--quiet", "--rows", "100", "--out"])
            .arg(&out)
            .env(var, value)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&got.stderr);
        assert_eq!(got.status.code(), Some(1), "{var}: {stderr}");
        assert!(
            stderr.contains("built without MPI") && stderr.lines().count() == 1,
            "{stderr}"
        );
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }
}

/// What every rank is told when the ranks cannot start together: ranks given
/// different censuses, or files of a census on other ranks. Checkpoint files
/// that some ranks have and others not (a census stopped at its first
/// checkpoint, or while its ranks removed theirs at the end) are removed,
/// and the census starts again.
#[test]
fn ranks_that_cannot_start_together_are_all_told_why() {
    use chomp3::f::census::rank_files::RankFiles;
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("c.c3k");
    let start = |params: &(dyn Fn(u32) -> Params + Sync)| {
        let said = std::sync::Mutex::new(Vec::new());
        on_ranks(2, |r| {
            let rank = r.rank();
            let files = RankFiles { base: base.clone() };
            let e = files
                .resume_or_start(params(rank), r)
                .err()
                .expect("refused");
            said.lock().unwrap().push(e.to_string());
            (rank == 0).then_some(())
        });
        let said = said.into_inner().unwrap();
        assert_eq!(said.len(), 2);
        assert_eq!(said[0], said[1], "every rank hears the same");
        said[0].clone()
    };
    let other = |rank: u32| Params {
        max_columns: PARAMS.max_columns - rank,
        ..PARAMS
    };
    let said = start(&other);
    assert!(
        said.contains("the ranks were given different censuses"),
        "{said}"
    );
    assert!(
        said.contains("rank 1 of 2: rows 0..=3500, at most 19999 columns"),
        "{said}"
    );
    // Another program's file at rank 1's name: refused, kept.
    let alone = dir.path().join("c.c3k.1-of-2.at-360");
    std::fs::write(&alone, b"x").unwrap();
    let said = start(&|_| PARAMS);
    assert!(
        said.contains("c.c3k.1-of-2.at-360 is named as a rank's census checkpoint but is not one"),
        "{said}"
    );
    assert_eq!(std::fs::read(&alone).unwrap(), b"x");
    // Rank 1's checkpoint alone (read no further than its kind), and a file
    // aside named for a process that runs (process 1): not a killed writer's.
    std::fs::write(&alone, b"CHOMP3CK, cut").unwrap();
    let running = dir.path().join(".c.c3k.0-of-2.at-360.new-1");
    std::fs::write(&running, b"kept").unwrap();
    on_ranks(2, |r| {
        let rank = r.rank();
        let files = RankFiles { base: base.clone() };
        let (run, left_over) = files.resume_or_start(PARAMS, r).expect("begun");
        assert!(left_over && run.columns() == 0);
        (rank == 0).then_some(())
    });
    assert!(!alone.exists(), "the lone file is removed");
    assert_eq!(std::fs::read(&running).unwrap(), b"kept");
    // A file of a census on three ranks is neither used nor removed.
    let other = dir.path().join("c.c3k.0-of-3.at-360");
    std::fs::write(&other, b"CHOMP3CK, cut").unwrap();
    let said = start(&|_| PARAMS);
    assert!(
        said.contains("is named as a checkpoint of a census on 3 ranks"),
        "{said}"
    );
    assert!(other.exists(), "nothing removed");
}
