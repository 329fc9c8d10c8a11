import { useMutation } from '@tanstack/react-query';
import { type FormEvent, useId, useRef, useState } from 'react';
import { api, unwrap } from '../api/client.js';
import { ErrorNotice } from '../components/ErrorNotice.js';

/** A name with a Rename button that turns into a one-field form. */
export function Renamable(props: {
  label: string;
  value: string;
  canEdit: boolean;
  onSave: (value: string) => Promise<unknown>;
  children: React.ReactNode;
}) {
  const id = useId();
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(props.value);
  const save = useMutation({
    mutationFn: props.onSave,
    onSuccess: () => setEditing(false),
  });
  if (!editing) {
    return (
      <div className="row space-between">
        {props.children}
        {props.canEdit && (
          <button
            type="button"
            className="button button-small"
            aria-label={`Rename ${props.value}`}
            onClick={() => {
              setDraft(props.value);
              save.reset();
              setEditing(true);
            }}
          >
            Rename
          </button>
        )}
      </div>
    );
  }
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(draft.trim());
  };
  // The name stays (a section keeps its heading, so its label) with the form under it.
  return (
    <div>
      {props.children}
      <form className="filters" onSubmit={submit}>
        <div className="field grow">
          <label htmlFor={id}>{props.label}</label>
          <input id={id} value={draft} onChange={(e) => setDraft(e.target.value)} required />
        </div>
        <button type="submit" className="button button-primary" disabled={save.isPending}>
          Save
        </button>
        <button type="button" className="button" onClick={() => setEditing(false)}>
          Cancel
        </button>
        <ErrorNotice error={save.error} />
      </form>
    </div>
  );
}

/** The first field of a form opened on request takes focus as it appears (a ref callback). */
const focusOnMount = (node: HTMLElement | null) => node?.focus();

/**
 * A one-field "add" form (an environment, an agent), closed until asked for: a button opens it with its
 * field focused; Add or Cancel closes it and focus returns to the button.
 */
export function AddForm(props: {
  label: string;
  hint: string;
  opener: string;
  onAdd: (value: string) => Promise<unknown>;
}) {
  const id = useId();
  const [open, setOpen] = useState(false);
  const [value, setValue] = useState('');
  const opener = useRef<HTMLButtonElement>(null);
  const close = () => {
    setOpen(false);
    setValue('');
    // The button is back once the form is gone.
    requestAnimationFrame(() => opener.current?.focus());
  };
  const add = useMutation({ mutationFn: props.onAdd, onSuccess: close });
  if (!open) {
    return (
      <button
        type="button"
        className="button button-small"
        ref={opener}
        onClick={() => {
          add.reset();
          setOpen(true);
        }}
      >
        {props.opener}
      </button>
    );
  }
  return (
    <form
      className="filters"
      onSubmit={(event) => {
        event.preventDefault();
        add.mutate(value.trim());
      }}
    >
      <div className="field grow">
        <label htmlFor={id}>{props.label}</label>
        <input
          id={id}
          ref={focusOnMount}
          value={value}
          onChange={(e) => setValue(e.target.value)}
          placeholder={props.hint}
          required
        />
      </div>
      <button type="submit" className="button button-primary" disabled={add.isPending}>
        Add
      </button>
      <button type="button" className="button" onClick={close}>
        Cancel
      </button>
      <ErrorNotice error={add.error} />
    </form>
  );
}

/** The create form the page header's button opens; a created project refreshes the list and closes it. */
export function CreateProject(props: { onCreated: () => Promise<unknown>; onClose: () => void }) {
  const [draft, setDraft] = useState({ name: '', slug: '' });
  const create = useMutation({
    mutationFn: async () =>
      unwrap(
        await api.POST('/api/v1/projects', { body: { name: draft.name.trim(), slug: draft.slug.trim() } }),
      ),
    onSuccess: async () => {
      await props.onCreated();
      props.onClose();
    },
  });
  return (
    <form
      className="card filters"
      aria-label="Create a project"
      onSubmit={(event) => {
        event.preventDefault();
        create.mutate();
      }}
    >
      <div className="field grow">
        <label htmlFor="project-name">Project name</label>
        <input
          id="project-name"
          ref={focusOnMount}
          value={draft.name}
          onChange={(e) => setDraft({ ...draft, name: e.target.value })}
          required
        />
      </div>
      <div className="field grow">
        <label htmlFor="project-slug">Slug (lowercase letters, digits, - and _)</label>
        <input
          id="project-slug"
          value={draft.slug}
          onChange={(e) => setDraft({ ...draft, slug: e.target.value })}
          pattern="[a-z0-9][a-z0-9_\-]*"
          required
        />
      </div>
      <button type="submit" className="button button-primary" disabled={create.isPending}>
        Create project
      </button>
      <button type="button" className="button" onClick={props.onClose}>
        Cancel
      </button>
      <ErrorNotice error={create.error} />
    </form>
  );
}
