import * as yauzl from 'yauzl';

import { decodeEntities } from './reader-text';

/** The parts of an Office Open XML file that hold what a reader sees: a document, its sheets, its slides. */
const visibleParts =
  /^(?:word\/(?:document|header\d*|footer\d*|footnotes|endnotes|comments)\.xml|xl\/sharedStrings\.xml|xl\/worksheets\/sheet\d+\.xml|ppt\/slides\/slide\d+\.xml)$/;

/** More than any honest attachment inflates to: an archive built to exhaust memory gives up its text, not the grade. */
const maxInflatedBytes = 20 * 1024 * 1024;

/** XML as the text it shows: paragraphs, rows and cells apart, tags dropped, entities decoded. */
const xmlText = (xml: string): string =>
  decodeEntities(
    xml
      .replace(/<\/(?:w:p|a:p|row|si)>|<w:br\/>/g, '\n')
      .replace(/<\/(?:c|w:tc)>|<w:tab\/>/g, ' | ')
      .replace(/<[^>]*>/g, ''),
  );

/**
 * The text of a .docx, .xlsx or .pptx (a zip of XML parts), or `undefined` when it is not one or cannot be read.
 * Only the visible parts are inflated, and no more than `maxInflatedBytes` in all.
 */
export const officeText = (bytes: Buffer): Promise<string | undefined> =>
  new Promise((resolve) => {
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (error, zip) => {
      if (error || !zip) {
        resolve(undefined);
        return;
      }
      const texts: string[] = [];
      let inflated = 0;
      let done = false;
      const give = (text: string | undefined) => {
        if (!done) {
          done = true;
          zip.close();
          resolve(text);
        }
      };
      zip.on('error', () => give(undefined));
      zip.on('end', () => give(texts.length > 0 ? texts.join('\n') : undefined));
      zip.on('entry', (entry: yauzl.Entry) => {
        if (!visibleParts.test(entry.fileName)) {
          zip.readEntry();
          return;
        }
        zip.openReadStream(entry, (streamError, stream) => {
          if (streamError || !stream) {
            give(undefined);
            return;
          }
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => {
            inflated += chunk.length;
            if (inflated > maxInflatedBytes) {
              stream.destroy();
              give(texts.length > 0 ? texts.join('\n') : undefined);
              return;
            }
            chunks.push(chunk);
          });
          stream.on('error', () => give(undefined));
          stream.on('end', () => {
            texts.push(xmlText(Buffer.concat(chunks).toString('utf8')));
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
