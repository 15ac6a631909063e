-- The ERP's own tables, as exported by the client's DBA.
CREATE TABLE suppliers (
  id uuid PRIMARY KEY,
  name text NOT NULL,
  country char(2) NOT NULL,
  payment_terms_days integer NOT NULL DEFAULT 30,
  status text NOT NULL DEFAULT 'active',
  created_at timestamptz NOT NULL,
  updated_at timestamptz
);

CREATE TABLE supplier_contacts (
  id uuid PRIMARY KEY,
  supplier_id uuid NOT NULL REFERENCES suppliers(id),
  name text NOT NULL,
  email text NOT NULL,
  phone text
);

CREATE TABLE items (
  id text PRIMARY KEY,
  sku text NOT NULL,
  name text NOT NULL,
  unit_price numeric(12, 2) NOT NULL,
  currency char(3) NOT NULL
);

CREATE TABLE purchase_orders (
  id text PRIMARY KEY,
  supplier_id uuid NOT NULL,
  cost_centre text NOT NULL,
  status text NOT NULL,
  total numeric(14, 2) NOT NULL,
  approved_by uuid,
  FOREIGN KEY (supplier_id) REFERENCES suppliers(id)
);

CREATE TABLE purchase_order_lines (
  purchase_order_id text NOT NULL REFERENCES purchase_orders(id),
  line_no integer NOT NULL,
  item_id text NOT NULL REFERENCES items(id),
  quantity integer NOT NULL,
  PRIMARY KEY (purchase_order_id, line_no)
);
