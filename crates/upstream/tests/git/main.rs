//! The git layer's contract, in-process, against real repositories made in temporary folders
//! with the `git` program (and, for the transports, small servers on 127.0.0.1 that never
//! answer or ask for credentials); nothing touches the network. `fetch` holds what
//! [`eggcat_upstream::fetch_tree`] promises (the mirror, new and rewritten commits, branches,
//! bundles, plain folders), `limits` the time and size limits and the transports git may speak,
//! `history` what [`eggcat_upstream::read_history`] reads (the window, merges, dates, renames,
//! deletions, the budget).

mod fetch;
mod history;
mod limits;
mod support;
