//! The wire types, now `eggcat-wire`'s, re-exported so that the build's callers keep their
//! paths; and the code the build gives a shared uuid.

pub use eggcat_validate::SHARED_UUID;
pub use eggcat_wire::{
    Change, Database, DatabaseFiles, Diagnostic, DiagnosticCounts, DownloadInfo, DownloadKind,
    DownloadsReport, EggDocument, History, ImageInfo, ImageRole, ImageStatus, ImagesReport,
    Imports, IndexItem, Key, Meta, MissingDownload, MissingImage, PanelImport, Problem,
    ProblemDocument, Removed, Report, Severity, Since, SourceProblem, SourceReport, SourceState,
    SourceStatus, State, SummaryItem, UpdateCheckMd5, Version, VersionEvent,
};
