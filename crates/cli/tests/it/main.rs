//! The integration tests: one test binary. Upstreams are real git repositories in temp dirs,
//! fetched through real transports; servers listen on 127.0.0.1 only.

mod bad_input;
mod build;
mod cli;
mod golden;
mod http;
mod real_data;
mod removed;
mod serve;
mod support;
mod transports;
