//! The integration tests: one test binary. Upstreams are real git repositories in temp dirs,
//! fetched through real transports; servers listen on 127.0.0.1 only.

mod bad_input;
mod browser;
mod build;
mod cli;
mod conformance;
mod contract;
#[allow(dead_code, unreachable_pub)]
#[path = "../../../panels/tests/support/db.rs"]
mod db;
mod demo;
mod diff;
mod doc_commands;
mod doc_links;
mod downloads;
mod errors;
mod faults;
mod faults_connections;
mod faults_disk;
mod faults_publish;
mod golden;
mod history;
mod history_window;
mod hosts;
mod http;
mod images;
mod messages;
mod modules;
mod panel_corpus;
mod panel_pterodactyl;
mod panel_status;
mod panels;
#[path = "../../../panels/tests/support/pelican_api.rs"]
mod pelican_api;
mod publish;
mod publish_failures;
mod publish_site;
mod real_data;
mod registry;
mod removed;
mod serve;
mod static_hosts;
mod support;
mod transports;
mod validate;
mod versions;
