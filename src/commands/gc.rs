//! `rehearse gc`: what interrupted or killed rehearsals left behind, removed or listed.

use clap::Args;
use rehearse::exit::Outcome;

use super::Failure;

/// `rehearse gc`.
#[derive(Debug, Args)]
pub struct GcArgs {
    /// Also delete the sandboxes (checkpoint copies, logs) that rehearsals killed with SIGKILL
    /// left in the temp dir; without it they are only listed. Kept sandboxes (`--keep`) and
    /// those of running rehearsals are never touched.
    #[arg(long)]
    pub sandboxes: bool,
}

/// `rehearse gc`: what was removed or skipped, one line each, then the sandboxes killed
/// rehearsals left — in the temp dir, and wherever else they recorded one (`--report-dir`,
/// remote sources staged there) — deleted with `--sandboxes`, else listed with the command.
pub fn exec(args: GcArgs) -> Result<Outcome, Failure> {
    // No kind of its own: bad input, as it always was.
    let runtime = tokio::runtime::Runtime::new().map_err(|e| {
        Failure::bad_input(anyhow::Error::new(e).context("cannot start the async runtime"))
    })?;
    let lines = runtime.block_on(rehearse::runtime::gc(rehearse::runtime::GcScope::Orphans))?;
    // The temp dir's, and every other a rehearsal recorded (under --report-dir, remote sources
    // staged there).
    let mut sandboxes = rehearse::runtime::left_sandboxes(&std::env::temp_dir());
    sandboxes.extend(rehearse::runtime::registered_sandboxes());
    sandboxes.sort();
    sandboxes.dedup();
    if lines.is_empty() && sandboxes.is_empty() {
        println!("nothing to remove");
    }
    for line in lines {
        println!("{line}");
    }
    for s in &sandboxes {
        if args.sandboxes {
            match std::fs::remove_dir_all(s) {
                Ok(()) => println!("removed sandbox {}", s.display()),
                Err(e) => println!("skipped sandbox {}: {e}", s.display()),
            }
        } else {
            println!(
                "left behind by a rehearsal that was killed: sandbox {}",
                s.display()
            );
        }
    }
    if !sandboxes.is_empty() && !args.sandboxes {
        println!("(delete these sandboxes with `rehearse gc --sandboxes`)");
    }
    Ok(Outcome::Success)
}
