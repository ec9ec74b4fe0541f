CREATE TABLE IF NOT EXISTS annotation (
	annotation_id VARCHAR NOT NULL,
	claim_id VARCHAR NOT NULL,
	citation_index INTEGER NOT NULL,
	label VARCHAR NOT NULL,
	rationale VARCHAR NOT NULL,
	reviewer VARCHAR NOT NULL,
	created_at TIMESTAMP NOT NULL,
	source_revision VARCHAR,
	claim_revision VARCHAR,
	adjudication BOOLEAN NOT NULL,
	PRIMARY KEY (annotation_id)
);

CREATE INDEX IF NOT EXISTS ix_annotation_claim_id ON annotation (claim_id);

CREATE TABLE IF NOT EXISTS answer (
	answer_rev VARCHAR NOT NULL,
	answer_id VARCHAR NOT NULL,
	question VARCHAR,
	format VARCHAR NOT NULL,
	content_json VARCHAR NOT NULL,
	stored_at TIMESTAMP NOT NULL,
	corrects VARCHAR,
	correction_rationale VARCHAR,
	missing_evidence VARCHAR,
	PRIMARY KEY (answer_rev)
);

CREATE INDEX IF NOT EXISTS ix_answer_answer_id ON answer (answer_id);

CREATE TABLE IF NOT EXISTS citation (
	citation_id VARCHAR NOT NULL,
	claim_id VARCHAR NOT NULL,
	ordinal INTEGER NOT NULL,
	source_key VARCHAR,
	revision VARCHAR,
	chunk_id VARCHAR,
	start BIGINT,
	"end" BIGINT,
	quote VARCHAR,
	role VARCHAR,
	page BIGINT,
	PRIMARY KEY (citation_id)
);

CREATE INDEX IF NOT EXISTS ix_citation_claim_id ON citation (claim_id);

CREATE TABLE IF NOT EXISTS claim (
	claim_id VARCHAR NOT NULL,
	answer_rev VARCHAR NOT NULL,
	ordinal INTEGER NOT NULL,
	part INTEGER,
	parent_id VARCHAR,
	text VARCHAR NOT NULL,
	claim_type VARCHAR NOT NULL,
	atomic_json VARCHAR NOT NULL,
	PRIMARY KEY (claim_id)
);

CREATE INDEX IF NOT EXISTS ix_claim_answer_rev ON claim (answer_rev);

CREATE TABLE IF NOT EXISTS evidence_unit (
	unit_id VARCHAR NOT NULL,
	revision_id VARCHAR NOT NULL,
	source_key VARCHAR NOT NULL,
	ordinal INTEGER NOT NULL,
	start BIGINT NOT NULL,
	"end" BIGINT NOT NULL,
	text VARCHAR NOT NULL,
	block_type VARCHAR NOT NULL,
	heading_path_json VARCHAR NOT NULL,
	status VARCHAR NOT NULL,
	status_cue VARCHAR,
	page BIGINT,
	symbol VARCHAR,
	line_start BIGINT,
	line_end BIGINT,
	table_headers_json VARCHAR,
	PRIMARY KEY (unit_id)
);

CREATE INDEX IF NOT EXISTS ix_evidence_unit_revision_id ON evidence_unit (revision_id);

CREATE INDEX IF NOT EXISTS ix_evidence_unit_source_key ON evidence_unit (source_key);

CREATE TABLE IF NOT EXISTS lemma_lookup (
	word VARCHAR NOT NULL,
	lemma VARCHAR NOT NULL,
	PRIMARY KEY (word)
);

CREATE TABLE IF NOT EXISTS source (
	key VARCHAR NOT NULL,
	title VARCHAR,
	kind VARCHAR NOT NULL,
	visibility VARCHAR NOT NULL,
	current_revision VARCHAR NOT NULL,
	first_ingested_at TIMESTAMP NOT NULL,
	PRIMARY KEY (key)
);

CREATE TABLE IF NOT EXISTS source_lineage (
	key VARCHAR NOT NULL,
	current_revision VARCHAR,
	source_json VARCHAR,
	links_json VARCHAR NOT NULL,
	PRIMARY KEY (key)
);

CREATE TABLE IF NOT EXISTS source_link (
	link_id VARCHAR NOT NULL,
	from_key VARCHAR NOT NULL,
	to_key VARCHAR NOT NULL,
	relation VARCHAR NOT NULL,
	declared_in VARCHAR NOT NULL,
	PRIMARY KEY (link_id)
);

CREATE INDEX IF NOT EXISTS ix_source_link_from_key ON source_link (from_key);

CREATE INDEX IF NOT EXISTS ix_source_link_to_key ON source_link (to_key);

CREATE TABLE IF NOT EXISTS source_revision (
	revision_id VARCHAR NOT NULL,
	source_key VARCHAR NOT NULL,
	seq INTEGER NOT NULL,
	content_hash VARCHAR NOT NULL,
	text VARCHAR NOT NULL,
	format VARCHAR NOT NULL,
	ingested_at TIMESTAMP NOT NULL,
	effective DATE,
	status VARCHAR NOT NULL,
	title VARCHAR,
	kind VARCHAR NOT NULL,
	visibility VARCHAR NOT NULL,
	metadata_json VARCHAR NOT NULL,
	path VARCHAR,
	git_commit VARCHAR,
	build_role VARCHAR,
	previous_revision VARCHAR,
	PRIMARY KEY (revision_id)
);

CREATE INDEX IF NOT EXISTS ix_source_revision_source_key ON source_revision (source_key);

CREATE TABLE IF NOT EXISTS term_posting (
	term VARCHAR NOT NULL,
	unit_id VARCHAR NOT NULL,
	PRIMARY KEY (term, unit_id)
);

CREATE TABLE IF NOT EXISTS typed_value (
	value_id VARCHAR NOT NULL,
	unit_id VARCHAR NOT NULL,
	revision_id VARCHAR NOT NULL,
	start BIGINT NOT NULL,
	"end" BIGINT NOT NULL,
	surface VARCHAR NOT NULL,
	magnitude DOUBLE,
	low DOUBLE,
	high DOUBLE,
	unit VARCHAR,
	dimensionality VARCHAR,
	kind VARCHAR NOT NULL,
	counted_noun VARCHAR,
	measured VARCHAR,
	bound VARCHAR NOT NULL,
	role VARCHAR,
	PRIMARY KEY (value_id)
);

CREATE INDEX IF NOT EXISTS ix_typed_value_unit_id ON typed_value (unit_id);

CREATE TABLE IF NOT EXISTS unit_parse (
	unit_id VARCHAR NOT NULL,
	text_key VARCHAR NOT NULL,
	pipeline_version VARCHAR NOT NULL,
	parse BYTEA NOT NULL,
	PRIMARY KEY (unit_id, text_key, pipeline_version)
);

CREATE TABLE IF NOT EXISTS verification (
	record_id VARCHAR NOT NULL,
	claim_id VARCHAR NOT NULL,
	answer_rev VARCHAR NOT NULL,
	config_hash VARCHAR NOT NULL,
	config_json VARCHAR NOT NULL,
	evidence_revisions_json VARCHAR NOT NULL,
	verified_at TIMESTAMP NOT NULL,
	status VARCHAR NOT NULL,
	supported BOOLEAN NOT NULL,
	result_json VARCHAR NOT NULL,
	audience VARCHAR NOT NULL,
	PRIMARY KEY (record_id)
);

CREATE INDEX IF NOT EXISTS ix_verification_claim_id ON verification (claim_id);
