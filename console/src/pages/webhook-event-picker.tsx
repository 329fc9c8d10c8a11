import { useEffect, useRef } from 'react';
import { EVENT_GROUPS, type EventType, eventWords } from './event-words.js';

/** "All Expert events": checked when every type of the group is, mixed when some are. */
function GroupCheck(props: {
  label: string;
  chosen: number;
  total: number;
  onChange: (all: boolean) => void;
}) {
  const ref = useRef<HTMLInputElement>(null);
  useEffect(() => {
    if (ref.current) ref.current.indeterminate = props.chosen > 0 && props.chosen < props.total;
  }, [props.chosen, props.total]);
  return (
    <label className="check group-check">
      <input
        ref={ref}
        type="checkbox"
        checked={props.chosen === props.total}
        onChange={(event) => props.onChange(event.target.checked)}
      />
      {props.label}
    </label>
  );
}

/** The event types to send, as checkboxes grouped by resource. */
export function EventTypePicker(props: {
  value: EventType[];
  onChange: (types: EventType[]) => void;
  id: string;
}) {
  const { value, onChange } = props;
  return (
    <fieldset className="fieldset">
      <legend>Events to send</legend>
      <div className="event-groups">
        {EVENT_GROUPS.map((group) => {
          const chosen = group.types.filter((t) => value.includes(t)).length;
          return (
            <fieldset key={group.key} className="event-group">
              <legend>{group.label}</legend>
              {group.types.length > 1 && (
                <GroupCheck
                  label={group.all}
                  chosen={chosen}
                  total={group.types.length}
                  onChange={(all) =>
                    onChange(
                      all
                        ? [...value, ...group.types.filter((t) => !value.includes(t))]
                        : value.filter((t) => !group.types.includes(t)),
                    )
                  }
                />
              )}
              {group.types.map((type) => (
                <label key={type} className="check">
                  <input
                    type="checkbox"
                    name={`${props.id}-types`}
                    value={type}
                    checked={value.includes(type)}
                    onChange={() =>
                      onChange(value.includes(type) ? value.filter((t) => t !== type) : [...value, type])
                    }
                  />
                  <span>
                    {eventWords(type)} <code className="small">{type}</code>
                  </span>
                </label>
              ))}
            </fieldset>
          );
        })}
      </div>
    </fieldset>
  );
}
